import { type RequestHandler, Router } from "express";
import { z } from "zod";
import { jsonBody } from "../http/body";
import { badRequest, notFound, runtimeFailed, runtimeUnavailable } from "../http/errors";
import { CronInputError, type CronJobs } from "../openclaw/cron";
import type { GatewayRpc } from "../openclaw/rpc";
import { listSessions, type MemoryResetResult } from "../openclaw/sessions";

/** What the agent API needs of the runtime (OpenClaw's; an external runtime serves these paths itself). */
export interface AgentApi {
  rpc: GatewayRpc;
  cron: CronJobs;
  resetMemory(): Promise<MemoryResetResult>;
  /** Whether the runtime can answer now (it is `running`). */
  ready(): boolean;
}

export interface AgentRoutesOptions {
  api: AgentApi;
  requireAgent: RequestHandler;
}

/** A cron job body: `{enabled, schedule: {kind: "every", everyMs}, message?}` (everyMs 1 s to ~24.8 days). */
const cronJobBody = z.strictObject({
  enabled: z.boolean({ error: "enabled must be a boolean" }),
  schedule: z.strictObject(
    {
      kind: z.literal("every", { error: 'schedule.kind must be "every"' }),
      everyMs: z
        .number({ error: "schedule.everyMs must be a number" })
        .int("schedule.everyMs must be a whole number")
        .min(1_000, "schedule.everyMs must be at least 1000")
        .max(2_147_483_647, "schedule.everyMs is too large"),
    },
    { error: "schedule must be an object" },
  ),
  message: z.string().trim().min(1, "message must not be empty").max(10_000).optional(),
});

const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,99}$/;

/**
 * The agent API the platform calls on OpenClaw (gateway status, heartbeat, reset memory): sessions,
 * cron jobs (the heartbeat among them), memory reset. Shapes are the platform's, mapped from OpenClaw's RPC.
 */
export function agentRoutes({ api, requireAgent }: AgentRoutesOptions): Router {
  const router = Router();

  const live = (): AgentApi => {
    if (!api.ready()) throw runtimeUnavailable("the runtime is not running");
    return api;
  };
  const viaRuntime = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CronInputError) throw badRequest(error.message);
      throw runtimeFailed(`${what}: ${(error as Error).message}`);
    }
  };
  const jobName = (raw: unknown): string => {
    if (typeof raw !== "string" || !JOB_NAME.test(raw))
      throw badRequest("job name: 1-100 letters, digits, space, '_', '.', ':' or '-'");
    return raw;
  };

  router.get("/api/sessions", requireAgent, async (_req, res) => {
    const { rpc } = live();
    res.json({ sessions: await viaRuntime("sessions", () => listSessions(rpc)) });
  });

  router.get("/api/cron", requireAgent, async (_req, res) => {
    const { cron } = live();
    res.json({ jobs: await viaRuntime("cron", () => cron.list()) });
  });

  router.put("/api/cron/:name", requireAgent, jsonBody({ limit: "32kb" }), async (req, res) => {
    const name = jobName(req.params.name);
    const parsed = cronJobBody.safeParse(req.body);
    if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "invalid job");
    const { cron } = live();
    const { enabled, schedule, message } = parsed.data;
    const job = await viaRuntime("cron", () =>
      cron.put(name, { enabled, everyMs: schedule.everyMs, message }),
    );
    res.json({ job });
  });

  router.delete("/api/cron/:name", requireAgent, async (req, res) => {
    const name = jobName(req.params.name);
    const { cron } = live();
    if (!(await viaRuntime("cron", () => cron.remove(name)))) throw notFound(`no job named ${name}`);
    res.status(204).end();
  });

  router.post("/api/memory/reset", requireAgent, async (_req, res) => {
    const agent = live();
    const result = await viaRuntime("memory reset", () => agent.resetMemory());
    res.json({ ok: true, deleted: result.deleted, removed: result.removed.length });
  });

  return router;
}
