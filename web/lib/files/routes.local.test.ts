import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { useWebTestContext } from "../infra/testing";
import { describeFileRoutes, suiteEnv } from "./routes.suite";

const dir = await mkdtemp(join(tmpdir(), "svc-files-local-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

describeFileRoutes(
  "local",
  { storedFiles: async () => (await readdir(dir).catch(() => [])).sort() },
  useWebTestContext(suiteEnv({ FILES_STORAGE: "local", FILES_DIR: dir })),
);
