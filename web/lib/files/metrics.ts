import { counter } from "@svc/common/metrics/index";

/** Bytes of files stored by completed uploads. */
export function uploadedBytesCounter() {
  return counter({ name: "files_uploaded_bytes_total", help: "Bytes of files stored by completed uploads" });
}

/** Bytes of files sent by completed downloads. */
export function downloadedBytesCounter() {
  return counter({
    name: "files_downloaded_bytes_total",
    help: "Bytes of files sent by completed downloads",
  });
}

/** Uploads refused with 413 (cut off at FILE_MAX_BYTES or at the storage quota). */
export function refusedUploadsCounter() {
  return counter<"reason">({
    name: "files_uploads_refused_total",
    help: "Uploads refused with 413, by reason: file_too_large, storage_limit_exceeded",
    labelNames: ["reason"],
  });
}
