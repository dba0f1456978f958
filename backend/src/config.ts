import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { csv, flag, httpUrl, parseServiceEnv, port, positiveInt, postgresUrl, serviceEnv } from "@svc/common";
import { MANAGED_BASELINE_VERSION } from "@svc/common/runtime-version";
import { z } from "zod";
import { kubernetesEnv } from "./hosting/kubernetes-config";
import { runtimeInstallEnv } from "./runtime-install/config";
import { schedulerEnv } from "./scheduled-tasks/config";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const aiPlanLimit = z.strictObject({
  requestsPerHour: z
    .int("must be a positive whole number")
    .positive("must be a positive whole number")
    .optional(),
  tokensPerDay: z
    .int("must be a positive whole number")
    .positive("must be a positive whole number")
    .optional(),
  models: z.array(z.string().min(1, "must not be empty"), "must be a list of model ids").optional(),
});
export type AiPlanLimit = z.infer<typeof aiPlanLimit>;

/** AI_PLAN_LIMITS: a JSON object of plan name -> overrides; a problem is named by its path in the JSON. */
function aiPlanLimits() {
  return z
    .string()
    .transform((text, ctx): Record<string, AiPlanLimit> => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
      const parsed = z.record(z.string(), aiPlanLimit, "must be a JSON object of plans").safeParse(value);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      const where = issue.path.join(".");
      const what =
        issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : issue.message;
      ctx.addIssue({ code: "custom", message: where ? `${where}: ${what}` : what });
      return z.NEVER;
    })
    .default({});
}

export const envSchema = z.object({
  BACKEND_PORT: port(4000),
  ...serviceEnv(),
  DATABASE_URL: postgresUrl(),
  /** Bearer key of the backend's internal routes; `requireAuth` answers 500 while it is unset. */
  INTERNAL_API_KEY: z.string().optional(),
  /**
   * Key of the user-context signature; falls back to INTERNAL_API_KEY, except with NODE_ENV=production,
   * where it must be set and differ from INTERNAL_API_KEY (the backend refuses to start otherwise).
   */
  HMAC_SECRET: z.string().optional(),
  /** `production` (set by `npm start` and the container image) turns on the production-only check above. */
  NODE_ENV: z.string().optional(),
  /** The web app's public URL: cookie-authenticated permission WebSockets must come from its origin. */
  PUBLIC_URL: httpUrl().default("http://localhost:3000"),
  /** Emails (case-insensitive) whose `x-user-email` passes the admin check. */
  ADMIN_EMAILS: csv(),
  /** `/api/ai/chat` for the web user needs an account with a confirmed email; `false` for local development. */
  REQUIRE_VERIFIED_EMAIL: flag(true),
  /** 64 hex chars: encrypts agent gateway tokens at rest (shared with the web). */
  DATA_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters")
    .optional(),
  /** AI provider of `POST /api/ai/chat` (OpenAI-compatible chat completions). */
  AI_PROVIDER: z.string().default("openrouter"),
  AI_PROVIDER_URL: httpUrl().default("https://openrouter.ai/api/v1"),
  AI_PROVIDER_KEY: z.string().optional(),
  AI_PROVIDER_TIMEOUT_MS: positiveInt(30_000),
  /** Per-user budgets of `/api/ai/chat` (hour and UTC day) of every plan without its own AI_PLAN_LIMITS. */
  AI_REQUESTS_PER_HOUR: positiveInt(60),
  AI_TOKENS_PER_DAY: positiveInt(200_000),
  /** The model agents use by default (each agent's AGENT_MODEL): allowed on every plan. */
  AI_DEFAULT_MODEL: z.string().default("openai/gpt-4o-mini"),
  /** Further models every plan may use: ids, `prefix/*`, or `*` for any (comma list). */
  AI_MODELS: csv(),
  /** Per-plan overrides, JSON: `{"pro": {"requestsPerHour": 600, "tokensPerDay": 2000000, "models": ["*"]}}`. */
  AI_PLAN_LIMITS: aiPlanLimits(),
  /** Run the job worker inside this backend process (turn off when separate worker processes run). */
  JOB_WORKER_ENABLED: flag(true),
  /** Jobs one worker process runs at once. */
  JOB_WORKER_CONCURRENCY: positiveInt(4),
  /** Lanes this worker serves (comma list); all when empty. */
  JOB_WORKER_LANES: csv(),
  /** A job `running` longer than this is requeued (spec: 10 minutes). */
  JOB_STALE_AFTER_MS: positiveInt(10 * 60 * 1000),
  /** Safety-net poll when no notification arrives. */
  JOB_POLL_INTERVAL_MS: positiveInt(5_000),
  /**
   * How long a chat job waits for the agent's answer. A tool call the platform rates dangerous waits for a
   * person (the agent's PERMISSION_WAIT_SECONDS, 300 s by default) inside that answer, so it is longer than
   * that wait; below the 10 minutes after which a running job is requeued.
   */
  CHAT_JOB_TIMEOUT_MS: positiveInt(360_000),
  /** On SIGTERM, how long running jobs may finish before the rest go back to `queued`. */
  JOB_SHUTDOWN_GRACE_MS: positiveInt(10_000),

  // ---- Runtime maintenance (hosting drivers, provisioning, lifecycle operations) ----
  /**
   * Which hosting driver runs agents: `local` (wrapper processes on this machine), `railway`, `docker` or
   * `kubernetes` (a StatefulSet per agent, docs/kubernetes.md).
   */
  HOSTING_PROVIDER: z
    .enum(["local", "railway", "docker", "kubernetes"], "must be local, railway, docker or kubernetes")
    .default("local"),
  /** Railway's public GraphQL endpoint (overridable for tests and proxies). */
  HOSTING_API_URL: httpUrl().default("https://backboard.railway.com/graphql/v2"),
  HOSTING_API_KEY: z.string().optional(),
  /** `account` (Bearer) or `project` (`Project-Access-Token` header). */
  HOSTING_TOKEN_TYPE: z.enum(["account", "project"], "must be account or project").default("account"),
  HOSTING_PROJECT_ID: z.string().optional(),
  HOSTING_ENVIRONMENT_ID: z.string().optional(),
  /** The platform's current default runtime image (`update` and new agents use it; its tag is the version). */
  RUNTIME_IMAGE: z.string().default("ghcr.io/openclaw/openclaw:2026.4.11"),
  /**
   * The image docker, railway and kubernetes agents run: OpenClaw with the platform's wrapper and plugin, built from
   * Dockerfile.agent (`docker build -f Dockerfile.agent -t agent-platform-agent:2026.4.11 .`).
   */
  AGENT_IMAGE: z.string().default(`agent-platform-agent:${MANAGED_BASELINE_VERSION}`),
  /** Docker Engine API: `unix:///var/run/docker.sock` or `tcp://host:2375` / `http://host:2375`. */
  DOCKER_HOST: z.string().default("unix:///var/run/docker.sock"),
  ...kubernetesEnv,
  /**
   * Local driver: an operator's own runtime command, run as given by each agent's wrapper (`{port}` = its
   * RUNTIME_PORT; RUNTIME_KIND=external: the permission plugin cannot be verified). Unset (the default):
   * the managed OpenClaw RUNTIME_VERSION, installed under RUNTIMES_DIR on the first deploy.
   */
  LOCAL_RUNTIME_COMMAND: z.string().optional(),
  ...runtimeInstallEnv,
  /** Local driver: where each agent's data lives (`<dir>/<agentId>/`); relative to the repository root. */
  LOCAL_AGENTS_DIR: z
    .string()
    .default(".data/agents")
    .transform((dir) => resolve(REPO_ROOT, dir)),
  /**
   * The local driver's wrappers inherit these of the platform's environment (how to find programs, locale,
   * time zone) and nothing else of it; NODE_ENV above is inherited too.
   */
  PATH: z.string().optional(),
  LANG: z.string().optional(),
  LC_ALL: z.string().optional(),
  TZ: z.string().optional(),
  TMPDIR: z.string().optional(),
  NODE_EXTRA_CA_CERTS: z.string().optional(),
  /** The backend URL agents use for `/api/ai/chat` and the classify hook (sent in their environment). */
  BACKEND_PUBLIC_URL: httpUrl().default("http://127.0.0.1:4000"),
  /** Lifecycle operations answer 503 when false. */
  ENABLE_RUNTIME_CONTROLS: flag(true),
  /** `waitForHealthy`: poll interval and timeout (spec: 2 s, 60 s). */
  PROVISION_HEALTH_POLL_MS: positiveInt(2_000),
  PROVISION_HEALTH_TIMEOUT_MS: positiveInt(60_000),

  // ---- Watchdog (spec "Watchdog lifecycle", "Watchdog notifications") ----
  WATCHDOG_ENABLED: flag(true),
  WATCHDOG_AUTO_REPAIR: flag(true),
  WATCHDOG_INTERVAL_MS: positiveInt(2 * 60 * 1000),
  WATCHDOG_DEGRADED_INTERVAL_MS: positiveInt(5_000),
  WATCHDOG_CRASH_WINDOW_MS: positiveInt(5 * 60 * 1000),
  WATCHDOG_CRASH_THRESHOLD: positiveInt(3),
  WATCHDOG_STARTUP_GRACE_MS: positiveInt(30_000),
  /** Chat-bot notifications (Telegram-style Bot API: `{base}/bot<token>/sendMessage`). */
  WATCHDOG_BOT_TOKEN: z.string().optional(),
  WATCHDOG_ADMIN_CHAT_ID: z.string().optional(),
  WATCHDOG_BOT_API_URL: httpUrl().default("https://api.telegram.org"),
  /** Chat webhook (Slack/Discord-style JSON POST) for the same notifications. */
  WATCHDOG_WEBHOOK_URL: httpUrl().optional(),
  ...schedulerEnv,

  // ---- Permissions ----
  /**
   * A pending permission request expires this many seconds after it was made (no longer listed, decided
   * or waited on): the agents' hook waits at most PERMISSION_WAIT_SECONDS (300), plus a margin.
   */
  PERMISSION_PENDING_TTL_SECONDS: positiveInt(330),
});

export type BackendConfig = z.infer<typeof envSchema>;

/** The backend's configuration, parsed once at start. */
export function loadBackendConfig(env: Record<string, string | undefined> = process.env): BackendConfig {
  return parseServiceEnv(envSchema, env);
}
