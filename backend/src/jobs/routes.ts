import { Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import { parseBody } from "../http/body";
import { chatJobSchema, provisionJobSchema } from "./schema";
import { enqueueChatJob, enqueueProvisionJob, findJob, type JobDeps, queueMetrics } from "./service";
import { toJobJson } from "./types";

/** Platform jobs (internal key): enqueue provision and chat (202), read one job, queue metrics. */
export function platformJobRoutes(deps: JobDeps, options: { internalApiKey: string | undefined }): Router {
  const router = Router();
  router.use("/api/platform-jobs", requireInternalKey(options.internalApiKey));
  router.post("/api/platform-jobs/provision", async (req, res) => {
    const job = await enqueueProvisionJob(deps, parseBody(provisionJobSchema, req.body));
    res.status(202).json({ success: true, queued: true, job: toJobJson(job) });
  });
  router.post("/api/platform-jobs/chat", async (req, res) => {
    const job = await enqueueChatJob(deps, parseBody(chatJobSchema, req.body));
    res.status(202).json({ success: true, queued: true, job: toJobJson(job) });
  });
  router.get("/api/platform-jobs/metrics", async (_req, res) => {
    res.json(await queueMetrics(deps));
  });
  router.get("/api/platform-jobs/:jobId", async (req, res) => {
    res.json({ job: toJobJson(await findJob(deps, req.params.jobId)) });
  });
  return router;
}
