import { z } from "zod";
import { agentName } from "../agents/inputs";
import { readJson } from "../infra/http/body";

export { MAX_AGENT_NAME_LENGTH } from "../agents/inputs";

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

/** A lower-case identifier such as `openrouter` or `creative`. */
const identifier = (name: string) =>
  z
    .string(`${name} must be a string`)
    .trim()
    .regex(
      /^[a-z0-9][a-z0-9._-]{0,39}$/,
      `${name} must be 1 to 40 lower-case letters, digits, dots, hyphens or underscores`,
    );

/**
 * `POST /api/provision`: every field optional. `email` is accepted from older clients and dropped: the
 * account always comes from the session.
 */
export const provisionBody = z
  .strictObject(
    {
      name: agentName.optional(),
      aiProvider: identifier("aiProvider").optional(),
      agentType: identifier("agentType").optional(),
      email: z.unknown().optional(),
    },
    unknownKeys,
  )
  .transform(({ email: _ignored, ...body }) => body);
export type ProvisionBody = z.infer<typeof provisionBody>;

/** `POST /api/runtime/maintenance`: `restart` (default) or `factory-reset`. */
export const maintenanceBody = z.strictObject(
  {
    action: z
      .enum(["restart", "factory-reset"], "action must be restart or factory-reset")
      .default("restart"),
  },
  unknownKeys,
);
export type MaintenanceBody = z.infer<typeof maintenanceBody>;

/** A JSON object body where sending none at all means `{}` (both bodies above are all-optional). */
export function readOptionalJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return readJson(request, schema, { optional: true });
}

/**
 * `GET /api/runtime/logs?lines=`: for the API description; the route passes `lines` to the backend, which
 * checks it (1 to 500, default 100) and whose 400 passes through.
 */
export const logsQuery = z.object({ lines: z.string().optional() });

/*
 * What the backend answers for the runtime reads the dashboard shows (the web relays them as they are);
 * the Agent page's types come from these.
 */

/** `GET /api/runtime/health`: `no_agent`, or the shared probe's classification of the newest agent. */
export const agentHealthAnswer = z.object({
  status: z.string(),
  statusReason: z.string().optional(),
  agentId: z.string().optional(),
  /** The name its user gave it (`PATCH /api/agents/{agentId}`). */
  agentName: z.string().optional(),
  checkedAt: z.string().optional(),
});
export type AgentHealthAnswer = z.infer<typeof agentHealthAnswer>;

/** `GET /api/runtime/stats`: the platform's figures (null when it does not report one; never made up). */
export const instanceStatsAnswer = z.object({
  cpuPercent: z.number().nullable(),
  memoryBytes: z.number().nullable(),
  memoryLimitBytes: z.number().nullable(),
  telemetry: z.object({ restartCounts: z.boolean(), lastExit: z.boolean(), perMessage: z.boolean() }),
});
export type InstanceStatsAnswer = z.infer<typeof instanceStatsAnswer>;

/** One line of `GET /api/runtime/logs?lines=`, oldest first. */
export const runtimeLogLine = z.object({
  ts: z.string(),
  stream: z.enum(["stdout", "stderr"]),
  line: z.string(),
});
export const runtimeLogsAnswer = z.object({ lines: z.array(runtimeLogLine) });
export type RuntimeLogsAnswer = z.infer<typeof runtimeLogsAnswer>;

/** `logs?lines=` accepts 1 to 500 (default 100). */
export const LOG_LINES_MAX = 500;
