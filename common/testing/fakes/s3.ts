/**
 * A real S3-compatible server on loopback for tests and benches: s3rver (S3's REST protocol, SigV4,
 * multipart uploads) storing in a temporary directory, with one bucket. `storedFiles` lists every file the
 * server keeps for the bucket (objects, their metadata, parts of unfinished multipart uploads), so a test
 * can prove that nothing was left behind.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
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
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
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
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
    // s3rver's default credentials: it checks SigV4 signatures made with them.
  });
  const { port } = await server.run();
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
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
