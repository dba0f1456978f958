import { HttpError } from "@svc/common";
import { type Request, Router } from "express";
import type { z } from "zod";
import { requireInternalKey } from "../auth/internal-key";
import { chatJobSchema, provisionJobSchema } from "./schema";
import { enqueueChatJob, enqueueProvisionJob, findJob, type JobDeps, queueMetrics } from "./service";
import { toJobJson } from "./types";

/** Platform jobs (internal key): enqueue provision and chat (202), read one job, queue metrics. */
export function platformJobRoutes(deps: JobDeps, options: { internalApiKey: string | undefined }): Router {
  const router = Router();
  router.use("/api/platform-jobs", requireInternalKey(options.internalApiKey));
  router.post("/api/platform-jobs/provision", async (req, res) => {
    const job = await enqueueProvisionJob(deps, parse(provisionJobSchema, req));
    res.status(202).json({ success: true, queued: true, job: toJobJson(job) });
  });
  router.post("/api/platform-jobs/chat", async (req, res) => {
    const job = await enqueueChatJob(deps, parse(chatJobSchema, req));
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

function parse<S extends z.ZodType>(schema: S, req: Request): z.infer<S> {
  if (typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) {
    throw new HttpError(400, "invalid_request", "request body must be a JSON object");
  }
  const parsed = schema.safeParse(req.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message =
      issue?.code === "unrecognized_keys"
        ? `unknown field: ${issue.keys.join(", ")}`
        : (issue?.message ?? "invalid body");
    throw new HttpError(400, "invalid_request", message);
  }
  return parsed.data;
}
