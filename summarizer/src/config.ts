import { parseEnv, port } from "@svc/common";
import { z } from "zod";

const schema = z.object({
  SUMMARIZER_PORT: port(4100),
  HOST: z.string().default("127.0.0.1"),
});

export type SummarizerConfig = z.infer<typeof schema>;

/** The summarizer's configuration, parsed once at start. It has no database. */
export function loadSummarizerConfig(
  env: Record<string, string | undefined> = process.env,
): SummarizerConfig {
  return parseEnv(schema, env);
}
