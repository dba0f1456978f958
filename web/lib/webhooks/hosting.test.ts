/**
 * `POST /api/webhooks/hosting` against a loopback key-value store speaking the REST protocol.
 */

import { startFakeKvStore } from "@svc/common/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/webhooks/hosting/route";
import type { WebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import { call, type TestRequest, useWebTestContext } from "../infra/testing";
import { classifyHostingEvent, HOSTING_EVENT_KEY_PREFIX, HOSTING_EVENT_TTL_SECONDS } from "./hosting";

const SECRET = "hosting-webhook-secret-0123456789";
const store = await startFakeKvStore();
const { config } = useWebTestContext({
  HOSTING_WEBHOOK_SECRET: SECRET,
  KV_REST_API_URL: store.url,
  KV_REST_API_TOKEN: store.token,
});
afterAll(() => store.close());
afterEach(() => {
  overrideWebContext({ config });
  store.failWith(null);
});

/** Runs the next requests with these configuration changes. */
function withConfig(changes: Partial<WebConfig>) {
  overrideWebContext({ config: { ...config, ...changes } });
}

const deployFailed = {
  type: "DEPLOY",
  status: "FAILED",
  timestamp: "2026-11-21T09:59:00.000Z",
  project: { id: "prj_1", name: "agents" },
  deployment: { id: "dep_1", meta: {} },
};

function send(extra: Partial<TestRequest> = {}, json: unknown = deployFailed) {
  return call(POST, {
    method: "POST",
    path: "/api/webhooks/hosting",
    json,
    headers: { "x-webhook-secret": SECRET },
    ...extra,
  });
}

describe("POST /api/webhooks/hosting", () => {
  it("records a deployment event in the store for 7 days and returns event, record and stored", async () => {
    const res = await send();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      ok: true,
      event: deployFailed,
      record: {
        id: expect.stringMatching(/^hev_[0-9a-z]{20}$/),
        source: "deployment",
        eventType: "deployment.failed",
        payload: deployFailed,
        receivedAt: "2026-11-21T10:00:00.000Z",
      },
      stored: true,
    });
    const key = `${HOSTING_EVENT_KEY_PREFIX}${body.record.id}`;
    expect(JSON.parse(store.values.get(key) ?? "null")).toEqual(body.record);
    expect(store.ttls.get(key)).toBe(HOSTING_EVENT_TTL_SECONDS);
    expect(HOSTING_EVENT_TTL_SECONDS).toBe(604_800);
  });

  it("accepts the secret as a Bearer token", async () => {
    const res = await send({ headers: { authorization: `Bearer ${SECRET}` } });
    expect(res.status).toBe(200);
    expect((await res.json()).stored).toBe(true);
  });

  it("401 without a secret, with a wrong one, and with one in the URL even when right; nothing stored", async () => {
    const before = store.requests.length;
    const missing = await send({ headers: {} });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: "missing or invalid webhook secret",
      code: "unauthorized",
    });
    expect((await send({ headers: { "x-webhook-secret": `${SECRET}x` } })).status).toBe(401);
    expect((await send({ headers: { authorization: "Bearer wrong-secret" } })).status).toBe(401);
    const inUrl = await send({ path: `/api/webhooks/hosting?secret=${SECRET}` });
    expect(inUrl.status).toBe(401);
    expect((await inUrl.json()).error).toBe("send the webhook secret in a header, not in the URL");
    expect(store.requests.length).toBe(before);
  });

  it("503 while HOSTING_WEBHOOK_SECRET is unset", async () => {
    withConfig({ HOSTING_WEBHOOK_SECRET: undefined });
    const res = await send();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: "hosting webhook is not configured",
      code: "webhook_not_configured",
    });
  });

  it("400 for a body that is not JSON or not an object", async () => {
    const before = store.values.size;
    const bad = await call(POST, {
      method: "POST",
      path: "/api/webhooks/hosting",
      body: "{oops",
      headers: { "x-webhook-secret": SECRET, "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "request body is not valid JSON", code: "invalid_json" });
    expect((await send({}, [1, 2])).status).toBe(400);
    expect(store.values.size).toBe(before);
  });

  it("without a store the event is processed but not stored", async () => {
    withConfig({ KV_REST_API_URL: undefined, KV_REST_API_TOKEN: undefined });
    const before = store.requests.length;
    const res = await send();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      ok: true,
      stored: false,
      record: { eventType: "deployment.failed" },
    });
    expect(store.requests.length).toBe(before);
  });

  it("a failing store still answers, with stored false", async () => {
    store.failWith(500);
    const res = await send();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, stored: false });
  });

  it("records status-page incident and component events", async () => {
    const incident = {
      meta: { unsubscribe: "https://status.example/unsubscribe", documentation: "https://docs" },
      page: { id: "pg1", status_indicator: "major", status_description: "Partial outage" },
      incident: { id: "inc1", name: "Builds delayed", status: "investigating", impact: "major" },
    };
    const res = await send({}, incident);
    expect(res.status).toBe(200);
    expect((await res.json()).record).toMatchObject({
      source: "status_page",
      eventType: "incident.investigating",
    });

    const component = {
      page: { id: "pg1" },
      component_update: { old_status: "operational", new_status: "partial_outage", component_id: "c1" },
      component: { id: "c1", name: "Deployments", status: "partial_outage" },
    };
    expect((await (await send({}, component)).json()).record).toMatchObject({
      source: "status_page",
      eventType: "component.partial_outage",
    });
  });
});

describe("classifyHostingEvent", () => {
  it("reads deployment types in both styles and keeps unknown events", () => {
    expect(classifyHostingEvent({ type: "Deployment.crashed", details: {} })).toEqual({
      source: "deployment",
      eventType: "deployment.crashed",
    });
    expect(classifyHostingEvent({ type: "DEPLOY", status: "SUCCESS" })).toEqual({
      source: "deployment",
      eventType: "deployment.success",
    });
    expect(classifyHostingEvent({ deployment: { id: "d", status: "BUILDING" } })).toEqual({
      source: "deployment",
      eventType: "deployment.building",
    });
    expect(classifyHostingEvent({ component: { status: "operational" } })).toEqual({
      source: "status_page",
      eventType: "component.operational",
    });
    expect(classifyHostingEvent({ type: "Volume.Alert" })).toEqual({
      source: "unknown",
      eventType: "volume.alert",
    });
    expect(classifyHostingEvent({})).toEqual({ source: "unknown", eventType: "unknown" });
  });
});
