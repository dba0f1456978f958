import {
  csv,
  flag,
  httpUrl,
  parseServiceEnv,
  port,
  positiveInt,
  postgresUrl,
  secret,
  serviceEnv,
} from "@svc/common";
import { z } from "zod";
import { chainEnv } from "../../chain/config";
import { type FilesPlanConfig, filesEnv, loadFilesPlanConfig } from "../../files/config";
import { gatewayEnv, loadMppTokenConfig, type MppTokenConfig } from "../../gateway/config";
import { initDeepEnv } from "../../initdeep/config";
import { partnersEnv } from "../../partners/config";
import { radioEnv } from "../../radio/config";
import { loadTasksPlanConfig, type TasksPlanConfig, tasksEnv } from "../../scheduled-tasks/config";
import { skillsEnv } from "../../skills/config";
import { walletsEnv } from "../../wallets/config";

export const envSchema = z.object({
  DATABASE_URL: postgresUrl(),
  /** Where web/server.ts listens. */
  WEB_PORT: port(3000),
  ...serviceEnv(),
  /** Public URL of the web app; cookies get `Secure` when it is https. */
  PUBLIC_URL: httpUrl().default("http://localhost:3000"),
  /** Key of CSRF signatures and of the encryption of stored identity-provider tokens. */
  SESSION_SECRET: secret(),
  /** Where local state lives (mail written when SMTP_URL is unset goes to `<DATA_DIR>/mail`). */
  DATA_DIR: z.string().default(".data"),
  /** Take the client IP from X-Forwarded-For (the address your proxy appended) instead of the socket. */
  TRUST_PROXY: flag(false),
  /** With TRUST_PROXY: your proxies in front of the web; the client IP is that many from the right. */
  TRUST_PROXY_HOPS: positiveInt(1),
  /** `off` lets non-browser clients (curl, scripts) sign up. */
  BOT_PROTECTION: z.enum(["on", "off"], "must be on or off").default("on"),
  /** Credits granted to both users when a referral code is used at sign-up. */
  REFERRAL_CREDITS: positiveInt(10),
  /** Comma list of emails that are admins once their ownership is proven. */
  ADMIN_EMAILS: csv(),
  /**
   * Provisioning an agent and AI use (gateway chat, the backend's `/api/ai/chat` for the web user) need a
   * confirmed email. `false` lifts that for local development without mail; keep it on anywhere public.
   */
  REQUIRE_VERIFIED_EMAIL: flag(true),
  /** SMTP server for verification mail, e.g. smtp://user:pass@host:587; unset writes mail to files. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  MAIL_FROM: z.string().default("Agent Platform <no-reply@localhost>"),
  PASSKEY_CHALLENGE_TTL_MS: positiveInt(5 * 60 * 1000),
  /** WebAuthn relying party id and origin; default: the host and origin of PUBLIC_URL. */
  WEBAUTHN_RP_ID: z.string().optional(),
  WEBAUTHN_ORIGIN: httpUrl().optional(),
  WEBAUTHN_RP_NAME: z.string().default("Agent Platform"),
  /** OpenID Connect identity provider: issuer (its discovery document), client id and secret. */
  IDP_ISSUER: httpUrl().optional(),
  IDP_CLIENT_ID: z.string().optional(),
  IDP_CLIENT_SECRET: z.string().optional(),
  /** Backend base URL and the internal key the web uses to call it. */
  BACKEND_URL: httpUrl().default("http://127.0.0.1:4000"),
  INTERNAL_API_KEY: z.string().optional(),
  /**
   * Key of the user-context signature sent to the backend; falls back to INTERNAL_API_KEY, except with
   * NODE_ENV=production, where it must be set and differ from INTERNAL_API_KEY (the web refuses to start).
   */
  HMAC_SECRET: z.string().optional(),
  /** `production` (set by `npm start` and the container image) turns on the production-only check above. */
  NODE_ENV: z.string().optional(),
  /** 64 hex chars: encrypts agent gateway tokens at rest (shared with the backend). */
  DATA_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters")
    .optional(),
  /** Chat requests per client IP per minute (`POST /api/gateway/chat`). */
  CHAT_RATE_LIMIT_PER_MINUTE: positiveInt(30),
  /** Workload slots per user: a chat message takes 1, over 800 characters 2; freed when its job ends. */
  CHAT_WORKLOAD_SLOTS: positiveInt(4),
  /** Web summarizer base URL (dashboard health probes it). */
  SUMMARIZER_URL: httpUrl().default("http://127.0.0.1:4100"),
  /** Runtime lifecycle buttons and routes; false → the web answers 503 for lifecycle actions. */
  NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS: flag(true),
  /** The platform's default runtime image (version fallback when the backend is unreachable). */
  RUNTIME_IMAGE: z.string().default("ghcr.io/openclaw/openclaw:2026.4.11"),
  /** Hosting-status webhook secret (`x-webhook-secret` or `Authorization: Bearer`); unset → 503. */
  HOSTING_WEBHOOK_SECRET: z.string().optional(),
  /** Key-value store (common REST protocol) keeping webhook records 7 days; unset → not stored. */
  KV_REST_API_URL: httpUrl().optional(),
  KV_REST_API_TOKEN: z.string().optional(),
  ...gatewayEnv,
  ...filesEnv,
  ...tasksEnv,
  ...partnersEnv,
  ...skillsEnv,
  ...initDeepEnv,
  ...chainEnv,
  ...radioEnv,
  ...walletsEnv,
});

export type WebConfig = z.infer<typeof envSchema> & {
  cookieSecure: boolean;
  rpId: string;
  origin: string;
} & FilesPlanConfig &
  TasksPlanConfig &
  MppTokenConfig;

/** Parses the web's variables; a bad one fails with its name. */
export function loadWebConfig(env: Record<string, string | undefined> = process.env): WebConfig {
  // Every problem at once: the production secret rule too, judged on the variables as given.
  const parsed = parseServiceEnv(envSchema, env);
  const publicUrl = new URL(parsed.PUBLIC_URL);
  return {
    ...parsed,
    ...loadFilesPlanConfig(env, parsed),
    ...loadTasksPlanConfig(env),
    ...loadMppTokenConfig(parsed),
    ADMIN_EMAILS: parsed.ADMIN_EMAILS.map((e) => e.toLowerCase()),
    cookieSecure: publicUrl.protocol === "https:",
    rpId: parsed.WEBAUTHN_RP_ID ?? publicUrl.hostname,
    origin: parsed.WEBAUTHN_ORIGIN ? new URL(parsed.WEBAUTHN_ORIGIN).origin : publicUrl.origin,
  };
}
