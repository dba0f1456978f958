import { parseEnv, port, postgresUrl } from "@svc/common";
import { z } from "zod";

const schema = z.object({
  BACKEND_PORT: port(4000),
  HOST: z.string().default("127.0.0.1"),
  DATABASE_URL: postgresUrl(),
  INTERNAL_API_KEY: z.string().optional(),
});

export type BackendConfig = z.infer<typeof schema>;

/** The backend's configuration, parsed once at start. */
export function loadBackendConfig(env: Record<string, string | undefined> = process.env): BackendConfig {
  return parseEnv(schema, env);
}
