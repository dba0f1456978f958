import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { ownerColumns } from "./owner";

// Files uploaded to agents (spec "File", "Files"). `storagePath` is relative to the upload directory;
// only the uploader may list, download or delete a file.
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
