/**
 * A real S3-compatible server on loopback for tests and benches: s3rver (S3's REST protocol, SigV4,
 * multipart uploads) storing in a temporary directory, with one bucket. s3rver 3.7 lacks
 * AbortMultipartUpload (`DELETE /<bucket>/<key>?uploadId=`, answered 405), which clients send when an
 * upload fails; this server answers it as S3 does (204, the upload's parts dropped). `storedFiles` lists every file the
 * server keeps for the bucket (objects, their metadata, parts of unfinished multipart uploads), so a test
 * can prove that nothing was left behind.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

export interface FakeS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The variables that point the web's `s3` file storage at this server. */
  env: Record<string, string>;
  storedFiles(): Promise<string[]>;
  close(): Promise<void>;
}

interface S3rverInstance {
  configureBuckets(): Promise<unknown>;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
  logger?: { exceptions?: { unhandle(): void }; close?(): void };
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

export async function startFakeS3(bucket = "svc-files"): Promise<FakeS3> {
  const directory = await mkdtemp(join(tmpdir(), "svc-fake-s3-"));
  // s3rver ships no types (S3rverClass describes what is used); loaded only when a test starts one.
  const moduleName = "s3rver";
  const { default: S3rver } = (await import(moduleName)) as { default: S3rverClass };
  // s3rver's default credentials (S3RVER / S3RVER): it checks SigV4 signatures made with them.
  const s3rver = new S3rver({ silent: true, directory, configureBuckets: [{ name: bucket }] });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const uploadId = url.searchParams.get("uploadId");
    if (req.method !== "DELETE" || uploadId === null) return handle(req, res);
    // AbortMultipartUpload: signed like every request; the upload id is s3rver's directory name.
    const bucketName = url.pathname.split("/")[1] ?? "";
    if (!/^AWS4-HMAC-SHA256 /.test(req.headers.authorization ?? "") || !/^[\w-]+$/.test(uploadId)) {
      res.writeHead(403).end();
      return;
    }
    const parts = join(s3rver.store.getResourcePath(bucketName, undefined, "uploads"), uploadId);
    req.resume();
    void rm(parts, { recursive: true, force: true }).then(
      () => res.writeHead(204).end(),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = "S3RVER";
  const secretAccessKey = "S3RVER";
  const region = "us-east-1";
  return {
    endpoint,
    bucket,
    region,
    accessKeyId,
    secretAccessKey,
    env: {
      FILES_STORAGE: "s3",
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: region,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
    },
    storedFiles: () => filesUnder(join(directory, bucket)),
    async close() {
      const closed = new Promise((resolve) => http.close(resolve));
      http.closeAllConnections();
      await closed;
      s3rver.logger?.exceptions?.unhandle();
      s3rver.logger?.close?.();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
