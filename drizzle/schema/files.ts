import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, timestamptz } from "./columns";
import { ownerColumns } from "./owner";

// Files uploaded to agents. `storagePath` is the object's key in the storage
// (the file id, never the user's name), relative to the upload directory or bucket; only the uploader may
// list, download or delete a file.
export const files = pgTable(
  "files",
  {
    id: text("id").primaryKey(),
    ...ownerColumns(),
    /** Sanitized name, at most 128 characters. */
    filename: text("filename").notNull(),
    storagePath: text("storage_path").notNull().unique(),
    /** Bytes. */
    size: bigint("size", { mode: "number" }).notNull(),
    mimeType: text("mime_type").notNull().default("application/octet-stream"),
    createdAt: createdAt(),
  },
  (t) => [
    check("files_filename_length", sql`char_length(${t.filename}) between 1 and 128`),
    check("files_size_non_negative", sql`${t.size} >= 0`),
    // Listing by owner (optionally by agent) and the owner's total size for the storage quota.
    index("files_user_id_agent_id_idx").on(t.userId, t.agentId),
    index("files_agent_id_idx").on(t.agentId),
  ],
);
export type FileRecord = typeof files.$inferSelect;
export type NewFileRecord = typeof files.$inferInsert;

// Storage quota held by uploads in progress: taken (with the owner's row locked) before the first byte is
// stored, so concurrent uploads of one user cannot together pass the quota; removed when the upload ends.
// `expiresAt` frees the quota a crashed process left held.
export const fileUploadReservations = pgTable(
  "file_upload_reservations",
  {
    /** The id the file will have. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Bytes this upload may store at most. */
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (t) => [
    check("file_upload_reservations_bytes_non_negative", sql`${t.bytes} >= 0`),
    index("file_upload_reservations_user_id_idx").on(t.userId),
  ],
);
export type FileUploadReservation = typeof fileUploadReservations.$inferSelect;
