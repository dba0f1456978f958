import type { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { FileStorage } from "./index";
import { keyInsideBucket } from "./keys";

export interface S3StorageOptions {
  /** An S3-compatible endpoint; unset → AWS S3 of `region`. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Unset → the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** Each part of a multipart upload (S3's minimum); at most QUEUE_SIZE parts are in memory at once. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * Objects in one bucket of any S3-compatible store, so web processes on several machines share the files.
 * Uploads stream through a multipart upload; one that fails is aborted, so no object and no parts remain.
 */
export function s3Storage(options: S3StorageOptions): FileStorage {
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // A store that stops answering fails the request instead of holding it forever.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    maxAttempts: 2,
    // Checksums only where the operation requires them: several S3-compatible stores refuse the SDK's
    // newer default checksum headers, and the CRC of every part costs CPU that TLS makes redundant.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = options.bucket;
  return {
    driver: "s3",
    async put(key, body, contentType) {
      const upload = new Upload({
        client,
        params: { Bucket, Key: keyInsideBucket(key), Body: body, ContentType: contentType },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      await upload.done();
    },
    async open(key): Promise<Readable | null> {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyInsideBucket(key) }));
        return (object.Body as Readable | undefined) ?? null;
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === "NoSuchKey") return null;
        throw err;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyInsideBucket(key) }));
    },
  };
}
