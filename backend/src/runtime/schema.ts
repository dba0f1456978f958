import { z } from "zod";

/** `POST /api/agents/:agentId/maintenance` body: `{action}`, `restart` by default. */
export const maintenanceBody = z.strictObject({
  action: z
    .enum(["restart", "factory-reset"], { error: "action must be restart or factory-reset" })
    .default("restart"),
});
