import type { Readable } from "node:stream";
import type { WebConfig } from "../../infra/config";
import { localStorage } from "./local";
import { s3Storage } from "./s3";

/**
 * Where the bytes of uploaded files live. Keys are file ids; a key that resolves outside the storage
 * root is refused with 403 (`pathOutsideStorage`) by every method.
 */
export interface FileStorage {
  /** `local` or `s3`. */
  readonly driver: string;
  /**
   * Stores the stream's bytes under `key` as they arrive. Resolves once the object is complete; when the
   * stream fails (an upload cut off at its limit, a client gone) it rejects and leaves no object, not even
   * a partial one.
   */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The object's bytes, streamed; `null` when there is no such object. */
  open(key: string): Promise<Readable | null>;
  /** Removes the object; removing a missing one is not an error. */
  remove(key: string): Promise<void>;
}

type StorageConfig = Pick<
  WebConfig,
  | "FILES_STORAGE"
  | "FILES_DIR"
  | "DATA_DIR"
  | "S3_ENDPOINT"
  | "S3_BUCKET"
  | "S3_REGION"
  | "S3_ACCESS_KEY_ID"
  | "S3_SECRET_ACCESS_KEY"
  | "S3_FORCE_PATH_STYLE"
>;

const made = new WeakMap<StorageConfig, FileStorage>();

/** The storage driver the configuration names, made once per configuration. */
export function fileStorage(config: StorageConfig): FileStorage {
  let storage = made.get(config);
  if (!storage) {
    storage =
      config.FILES_STORAGE === "s3"
        ? s3Storage({
            endpoint: config.S3_ENDPOINT,
            bucket: config.S3_BUCKET ?? "",
            region: config.S3_REGION,
            accessKeyId: config.S3_ACCESS_KEY_ID,
            secretAccessKey: config.S3_SECRET_ACCESS_KEY,
            forcePathStyle: config.S3_FORCE_PATH_STYLE,
          })
        : localStorage(config.FILES_DIR ?? `${config.DATA_DIR}/files`);
    made.set(config, storage);
  }
  return storage;
}
