/**
 * Inbound hosting-platform status webhook: deployment
 * events of the hosting platform and incident or component events of its status page. Each event becomes
 * a record kept 7 days in the key-value store; without a store it is processed (classified, logged) but
 * not persisted.
 */
import { type Clock, type Logger, newId, safeEqual } from "@svc/common";
import { bearerToken } from "../apikeys/authenticate";
import { type KvConfig, KvError, kvSet } from "../infra/kv/client";
import { secretInUrl, unauthorized, webhookNotConfigured } from "./errors";

/** A hosting event's record lives 7 days. */
export const HOSTING_EVENT_TTL_SECONDS = 7 * 24 * 60 * 60;
export const HOSTING_EVENT_KEY_PREFIX = "hosting-status:event:";
export const WEBHOOK_SECRET_HEADER = "x-webhook-secret";

export type HostingEventSource = "deployment" | "status_page" | "unknown";

export interface HostingEventRecord {
  id: string;
  source: HostingEventSource;
  eventType: string;
  payload: Record<string, unknown>;
  receivedAt: string;
}

export interface HostingWebhookResult {
  ok: true;
  /** The event as received. */
  event: Record<string, unknown>;
  record: HostingEventRecord;
  /** Whether the record reached the key-value store. */
  stored: boolean;
}

/**
 * Checks the shared secret: 503 while HOSTING_WEBHOOK_SECRET is unset (the endpoint is not set up, so the
 * sender should retry later rather than think it was refused); 401 when the request carries it in the URL
 * (URLs end up in logs, so a secret there is treated as leaked and refused even when right); 401 when the
 * `x-webhook-secret` header (else `Authorization: Bearer`) is missing or wrong. Constant-time comparison.
 */
export function authorizeHostingWebhook(request: Request, secret: string | undefined): void {
  if (!secret) {
    throw webhookNotConfigured();
  }
  if (new URL(request.url).searchParams.has("secret")) {
    throw secretInUrl();
  }
  const given = request.headers.get(WEBHOOK_SECRET_HEADER) ?? bearerToken(request);
  if (!given || !safeEqual(given, secret)) {
    throw unauthorized();
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;
const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const slug = (value: string): string =>
  value
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, "_")
    .replace(/^_+|_+$/g, "");

/**
 * The event's source and type. Status-page events carry `incident` or `component` / `component_update`
 * (Statuspage-style); deployment events carry a `type` naming a deployment (`DEPLOY` with a `status`, or
 * `Deployment.failed`-style) or a `deployment` object. Anything else is kept as `unknown`, so a new event
 * kind is recorded rather than refused.
 */
export function classifyHostingEvent(payload: Record<string, unknown>): {
  source: HostingEventSource;
  eventType: string;
} {
  const incident = objectOf(payload.incident);
  if (incident) {
    return { source: "status_page", eventType: `incident.${slug(text(incident.status) ?? "updated")}` };
  }
  const componentUpdate = objectOf(payload.component_update);
  const component = objectOf(payload.component);
  if (componentUpdate || component) {
    const status = text(componentUpdate?.new_status) ?? text(component?.status) ?? "updated";
    return { source: "status_page", eventType: `component.${slug(status)}` };
  }
  const type = text(payload.type) ?? text(payload.event);
  const deployment = objectOf(payload.deployment);
  if ((type && /deploy/i.test(type)) || deployment) {
    const status = text(payload.status) ?? text(deployment?.status);
    if (type && /^[a-z]+\.[a-z_]+$/i.test(type)) return { source: "deployment", eventType: slug(type) };
    return { source: "deployment", eventType: `deployment.${slug(status ?? "updated")}` };
  }
  return { source: "unknown", eventType: type ? slug(type) || "unknown" : "unknown" };
}

export interface HostingWebhookDeps {
  clock: Clock;
  logger: Logger;
  /** Null when KV_REST_API_URL / KV_REST_API_TOKEN are unset. */
  kv: KvConfig | null;
}

/**
 * Classifies and records one event. A store that is configured but fails is logged and answered with
 * `stored: false`, like an unset store: the event was received and processed either way.
 */
export async function receiveHostingEvent(
  deps: HostingWebhookDeps,
  payload: Record<string, unknown>,
): Promise<HostingWebhookResult> {
  const record: HostingEventRecord = {
    id: newId("hev"),
    ...classifyHostingEvent(payload),
    payload,
    receivedAt: deps.clock.now().toISOString(),
  };
  let stored = false;
  if (deps.kv) {
    try {
      await kvSet(
        deps.kv,
        `${HOSTING_EVENT_KEY_PREFIX}${record.id}`,
        JSON.stringify(record),
        HOSTING_EVENT_TTL_SECONDS,
      );
      stored = true;
    } catch (err) {
      if (!(err instanceof KvError)) throw err;
      deps.logger.warn({ reason: err.message, eventId: record.id }, "hosting event not stored");
    }
  }
  deps.logger.info(
    { eventId: record.id, source: record.source, eventType: record.eventType, stored },
    "hosting event received",
  );
  return { ok: true, event: payload, record, stored };
}
