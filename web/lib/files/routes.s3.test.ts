import { startFakeS3 } from "@svc/common/testing";
import { afterAll } from "vitest";
import { useWebTestContext } from "../infra/testing";
import { describeFileRoutes, suiteEnv } from "./routes.suite";

// A real S3-compatible server (s3rver) on loopback, through the same suite as the local driver.
const s3 = await startFakeS3();
afterAll(() => s3.close());

describeFileRoutes("s3", { storedFiles: () => s3.storedFiles() }, useWebTestContext(suiteEnv(s3.env)));
