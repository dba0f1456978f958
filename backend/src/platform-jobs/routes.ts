import { Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import { userContextOf, userContextSecret, verifyUserContext } from "../auth/user-context";
import { parseBody } from "../http/body";
import { chatJobSchema, jobListQuery, provisionJobSchema } from "./inputs";
import {
  enqueueChatJob,
  enqueueProvisionJob,
  findJob,
  type JobDeps,
  listJobsOfUser,
  queueMetrics,
} from "./service";
import { toJobJson } from "./types";

export interface PlatformJobRoutesOptions {
  internalApiKey: string | undefined;
  /** The user-context key (`HMAC_SECRET`); the internal key when unset. */
  hmacSecret?: string | undefined;
}

/**
 * Platform jobs (internal key): enqueue provision and chat (202), read one job, queue metrics, and the list
 * of one user's own jobs (`GET /api/platform-jobs`, signed user context required: the user it names is the
 * only one whose jobs it shows).
 */
export function platformJobRoutes(deps: JobDeps, options: PlatformJobRoutesOptions): Router {
  const router = Router();
  router.use("/api/platform-jobs", requireInternalKey(options.internalApiKey));
  const signedUser = verifyUserContext({
    secret: userContextSecret({ HMAC_SECRET: options.hmacSecret, INTERNAL_API_KEY: options.internalApiKey }),
    required: true,
  });
  router.get("/api/platform-jobs", signedUser, async (req, res) => {
    const { userId } = userContextOf(res);
    const { jobs, nextCursor } = await listJobsOfUser(deps, userId, parseBody(jobListQuery, req.query));
    res.json({ jobs: jobs.map(toJobJson), nextCursor });
  });
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
