/**
 * The runtime routes when the backend cannot be reached (BACKEND_URL is a loopback port nobody listens on),
 * with runtime controls off and a floating RUNTIME_IMAGE.
 */
import { randomBytes } from "node:crypto";
import { freePort } from "@svc/common";
import { agents, platformJobs } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as PROVISION } from "@/app/api/provision/route";
import { GET as HEALTH } from "@/app/api/runtime/health/route";
import { POST as MAINTENANCE } from "@/app/api/runtime/maintenance/route";
import { POST as RESTART } from "@/app/api/runtime/restart/route";
import { GET as STATE } from "@/app/api/runtime/state/route";
import { GET as RUNTIME_VERSION_WEB } from "@/app/api/runtime/version/route";
import { GET as RUNTIME_VERSION } from "@/app/api/runtime-version/route";
import { loadWebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import { call, signedInUser, TEST_SESSION_SECRET, useWebTestContext, webContext } from "../infra/testing";

const webEnv = {
  BACKEND_URL: `http://127.0.0.1:${await freePort()}`,
  INTERNAL_API_KEY: "unreachable-internal-key-0123456789",
  NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS: "false",
  RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
};
const { config } = useWebTestContext(webEnv);

async function userWithAgent() {
  const signedIn = await signedInUser();
  const [agent] = await webContext()
    .db.insert(agents)
    .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId: signedIn.user.id, name: "A", url: null })
    .returning();
  return { ...signedIn, agent };
}

describe("backend unreachable", () => {
  it("reads answer 502 {error: backend_unavailable}", async () => {
    const { jar } = await userWithAgent();
    for (const [handler, path] of [
      [STATE, "/api/runtime/state"],
      [HEALTH, "/api/runtime/health"],
    ] as const) {
      const res = await call(handler, { path, jar });
      expect(res.status, path).toBe(502);
      expect(await res.json()).toEqual({
        error: "backend_unavailable",
        message: "the backend is unreachable",
      });
    }
  });

  it("health without an agent needs no backend: 200 {status: no_agent}", async () => {
    const { jar } = await signedInUser();
    const res = await call(HEALTH, { path: "/api/runtime/health", jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "no_agent" });
  });

  it("provision: 502, the agent record is kept (pending) for the next attempt, no job exists", async () => {
    const { user, jar } = await signedInUser();
    const res = await call(PROVISION, { method: "POST", path: "/api/provision", json: {}, jar });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: "the backend is unreachable", code: "backend_unavailable" });
    const rows = await webContext().db.select().from(agents).where(eq(agents.userId, user.id));
    expect(rows.map((r) => r.status)).toEqual(["pending"]);
    expect(await webContext().db.select().from(platformJobs).where(eq(platformJobs.userId, user.id))).toEqual(
      [],
    );
  });

  it("runtime-version: the fallback from RUNTIME_IMAGE, its floating tag normalized, on both paths", async () => {
    const expected = {
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      defaultImage: "ghcr.io/openclaw/openclaw:latest",
      fallback: true,
      deployedAt: expect.any(String),
    };
    const res = await call(RUNTIME_VERSION, { path: "/api/runtime-version" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body).toEqual(expected);
    expect(new Date(body.deployedAt).toISOString()).toBe(body.deployedAt);
    const web = await (await call(RUNTIME_VERSION_WEB, { path: "/api/runtime/version" })).json();
    expect(web).toEqual(body);
  });

  it("runtime-version with a concrete configured release keeps it; an unset internal key falls back too", async () => {
    for (const env of [
      { RUNTIME_IMAGE: "registry.local:5000/openclaw:2026.5.1" },
      { INTERNAL_API_KEY: "" },
    ]) {
      overrideWebContext({
        config: loadWebConfig({
          DATABASE_URL: process.env.DATABASE_URL,
          SESSION_SECRET: TEST_SESSION_SECRET,
          LOG_LEVEL: "silent",
          ...webEnv,
          ...env,
        }),
      });
      try {
        const body = await (await call(RUNTIME_VERSION, { path: "/api/runtime-version" })).json();
        const image = env.RUNTIME_IMAGE ?? webEnv.RUNTIME_IMAGE;
        expect(body).toMatchObject({
          version: env.RUNTIME_IMAGE ? "2026.5.1" : "2026.4.11",
          defaultImage: image,
          fallback: true,
        });
      } finally {
        overrideWebContext({ config });
      }
    }
  });
});

describe("NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS=false", () => {
  it("lifecycle actions are 503 from the web itself (a call to the backend would have been 502)", async () => {
    const { jar } = await userWithAgent();
    for (const [handler, path] of [
      [RESTART, "/api/runtime/restart"],
      [MAINTENANCE, "/api/runtime/maintenance"],
    ] as const) {
      const res = await call(handler, { method: "POST", path, jar, json: {} });
      expect(res.status, path).toBe(503);
      expect(await res.json()).toEqual({
        error: "runtime_controls_disabled",
        message: "runtime controls are disabled on this platform",
      });
    }
  });

  it("…even without an agent, and still 401 first without a session", async () => {
    const { jar } = await signedInUser();
    expect((await call(RESTART, { method: "POST", path: "/api/runtime/restart", jar })).status).toBe(503);
    expect((await call(RESTART, { method: "POST", path: "/api/runtime/restart" })).status).toBe(401);
  });
});
