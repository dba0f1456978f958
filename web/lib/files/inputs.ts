import { z } from "zod";

const id = (name: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(200, `${name} is too long`);

/** `GET /api/files` query: `?agentId=` lists one agent's files, `?download=<id>` downloads one. */
export const filesQuery = z.strictObject({
  agentId: id("agentId").optional(),
  download: id("download").optional(),
});

/** `DELETE /api/files` body: `{fileId}`. */
export const deleteFileBody = z.strictObject({ fileId: id("fileId") });

/** The multipart fields of `POST /api/files` (described for the API document; parsed by busboy). */
export const uploadFileForm = z
  .object({
    file: z.string().meta({ format: "binary", description: "the file's bytes" }),
    agentId: z.string().meta({ description: "one of the caller's agents" }),
  })
  .meta({ id: "FileUpload" });

/** A file as the list answers it. */
export const fileSchema = z
  .object({
    id: z.string(),
    filename: z.string().meta({ description: "sanitized, at most 128 characters" }),
    url: z.string().meta({ description: "`/api/files?download=<file_id>`" }),
    size: z.number().int().meta({ description: "bytes" }),
    mimeType: z.string(),
    agentId: z.string(),
    createdAt: z.string().meta({ description: "ISO 8601" }),
  })
  .meta({ id: "File" });

/** The upload answer's file: `name`, `type`, `uploaded` in place of the list's `filename`, `mimeType`, `createdAt`. */
export const uploadedFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    size: z.number().int(),
    type: z.string(),
    url: z.string(),
    uploaded: z.string(),
  })
  .meta({ id: "UploadedFile" });

export const uploadFileResponse = z.object({ success: z.literal(true), file: uploadedFileSchema });
export const listFilesResponse = z.object({
  files: z.array(fileSchema),
  totalSize: z.number().int().meta({ description: "bytes of the listed files" }),
  count: z.number().int(),
});
export const deleteFileResponse = z.object({ success: z.literal(true), fileId: z.string() });
export const fileQuotaResponse = z.object({
  plan: z.string(),
  quotaBytes: z.number().int(),
  usedBytes: z.number().int(),
  maxFileBytes: z.number().int(),
});

export type FileView = z.infer<typeof fileSchema>;
export type UploadedFile = z.infer<typeof uploadedFileSchema>;
export type FileList = z.infer<typeof listFilesResponse>;
export type FileQuota = z.infer<typeof fileQuotaResponse>;
