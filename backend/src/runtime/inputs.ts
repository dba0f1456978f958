import { z } from "zod";

/** `POST /api/agents/:agentId/maintenance` body: `{action}`, `restart` by default. */
export const maintenanceBody = z.strictObject({
  action: z
    .enum(["restart", "factory-reset"], { error: "action must be restart or factory-reset" })
    .default("restart"),
});

/**
 * `GET /api/agents/:agentId/logs?lines=`: 1 to 500, default 100. For the API description; the route checks
 * it by hand (`logLines`) to keep its `invalid_lines` error code.
 */
export const logsQuery = z.object({
  lines: z
    .string()
    .regex(/^\d{1,3}$/)
    .optional()
    .meta({ description: "1 to 500, default 100" }),
});
