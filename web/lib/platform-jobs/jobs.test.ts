/**
 * `GET /api/jobs` against the REAL backend (its app in-process on loopback, through a recording relay): the
 * web asks for the session's user with a signed context, and the backend lists only that user's jobs.
 */
import { createHmac } from "node:crypto";
import { freePort } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { afterAll, describe, expect, it } from "vitest";
import { GET as LIST } from "@/app/api/jobs/route";
import { enqueueJob } from "../../../backend/src/platform-jobs/sql";
import { call, signedInUser, useWebTestContext } from "../infra/testing";
import { startTestBackend } from "../runtime/testing/backend";

const INTERNAL_API_KEY = "jobs-internal-key-0123456789abcdef";
const HMAC_SECRET = "jobs-hmac-secret-0123456789abcdef";

const backend = await startTestBackend({ INTERNAL_API_KEY, HMAC_SECRET });
const db = connectDatabase(process.env.DATABASE_URL as string, { max: 2 });
useWebTestContext({ BACKEND_URL: backend.url, INTERNAL_API_KEY, HMAC_SECRET });
afterAll(async () => {
  await backend.close();
  await db.close();
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const list = (jar: Jar | undefined, query = "") => call(LIST, { path: `/api/jobs${query}`, jar });

async function enqueue(
  userId: string,
  jobType: "gateway_chat_completion" | "provision_managed_runtime",
  iso?: string,
) {
  const clock = { now: () => (iso ? new Date(iso) : null) };
  return enqueueJob(db.pool, clock, {
    jobType,
    userId,
    agentId: "agt_x",
    payload: { userId, message: "hi" },
  });
}
const idsOf = async (res: Response) => ((await res.json()).jobs as Array<{ id: string }>).map((j) => j.id);

describe("GET /api/jobs", () => {
  it("the user's own jobs, newest first, in the API's job shape; another user's are never listed", async () => {
    const ann = await signedInUser();
    const bob = await signedInUser();
    const first = await enqueue(ann.user.id, "provision_managed_runtime", "2026-06-01T00:00:00Z");
    const second = await enqueue(ann.user.id, "gateway_chat_completion", "2026-06-02T00:00:00Z");
    const bobs = await enqueue(bob.user.id, "gateway_chat_completion", "2026-06-03T00:00:00Z");

    const res = await list(ann.jar);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.nextCursor).toBeNull();
    expect(body.jobs.map((j: { id: string }) => j.id)).toEqual([second.id, first.id]);
    expect(body.jobs[0]).toEqual({
      id: second.id,
      userId: ann.user.id,
      agentId: "agt_x",
      lane: "runtime_exec",
      jobType: "gateway_chat_completion",
      status: "queued",
      priority: 50,
      attempts: 0,
      maxAttempts: 3,
      runAt: "2026-06-02T00:00:00.000Z",
      lockedAt: null,
      startedAt: null,
      completedAt: null,
      error: null,
      result: null,
      progress: null,
      payload: { userId: ann.user.id, message: "hi" },
      createdAt: "2026-06-02T00:00:00.000Z",
      updatedAt: "2026-06-02T00:00:00.000Z",
    });
    expect(await idsOf(await list(bob.jar))).toEqual([bobs.id]);

    // The web asked for the session's user, signed; the query cannot name anybody else.
    const sent = backend.exchanges.at(-1);
    expect(sent?.path).toBe("/api/platform-jobs");
    expect(sent?.headers["x-user-id"]).toBe(bob.user.id);
    expect(sent?.headers["x-user-signature"]).toBe(
      createHmac("sha256", HMAC_SECRET).update(`${bob.user.id}:${bob.user.email}:user`).digest("hex"),
    );
    const sneaky = await list(bob.jar, `?userId=${ann.user.id}`);
    expect(sneaky.status).toBe(400);
    expect(await sneaky.json()).toEqual({ error: "unknown field: userId", code: "invalid_request" });
  });

  it("pages with limit and cursor, stable while new jobs arrive; filters by type and status", async () => {
    const { user, jar } = await signedInUser();
    const older: string[] = [];
    for (let day = 1; day <= 5; day++) {
      older.push((await enqueue(user.id, "gateway_chat_completion", `2026-07-0${day}T00:00:00Z`)).id);
    }
    await enqueue(user.id, "provision_managed_runtime", "2026-06-30T00:00:00Z");
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(
        jar,
        `?limit=2&type=gateway_chat_completion${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...body.jobs.map((j: { id: string }) => j.id));
      cursor = body.nextCursor;
      await enqueue(user.id, "gateway_chat_completion"); // newer than every page: never shows up in later pages
    } while (cursor);
    expect(seen).toEqual([...older].reverse());
    expect((await (await list(jar, "?limit=100")).json()).jobs).toHaveLength(9);
    expect((await (await list(jar)).json()).jobs).toHaveLength(9);
    expect(await idsOf(await list(jar, "?type=provision_managed_runtime"))).toHaveLength(1);
    expect(await idsOf(await list(jar, "?status=failed"))).toEqual([]);
  });

  it("400 naming the parameter; nothing reaches the backend for the web's own checks", async () => {
    const { jar } = await signedInUser();
    const cases: Array<[string, string, string]> = [
      ["?limit=0", "Limit must be a whole number from 1 to 100", "limit"],
      ["?limit=500", "Limit must be a whole number from 1 to 100", "limit"],
      ["?limit=x", "Limit must be a whole number from 1 to 100", "limit"],
      [
        "?type=nope",
        "Type must be one of provision_managed_runtime, gateway_chat_completion, runtime_sync, retry_repair",
        "type",
      ],
      ["?status=nope", "Status must be one of queued, running, completed, failed", "status"],
    ];
    for (const [query, error, field] of cases) {
      const before = backend.exchanges.length;
      const res = await list(jar, query);
      expect({ query, status: res.status, body: await res.json() }).toEqual({
        query,
        status: 400,
        body: { error, code: "invalid_request", field },
      });
      expect(backend.exchanges.length).toBe(before);
    }
    // The backend judges the cursor; its 400 passes through.
    const bad = await list(jar, "?cursor=not-a-cursor");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: "cursor: is not a cursor of this list",
      code: "invalid_request",
    });
  });

  it("401 without a session", async () => {
    const res = await list(undefined);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
  });

  it("502 when the backend cannot be reached or refuses the web's key", async () => {
    const { jar } = await signedInUser();
    const { overrideWebContext } = await import("../infra/context");
    const { loadWebConfig } = await import("../infra/config");
    const base = {
      DATABASE_URL: process.env.DATABASE_URL,
      SESSION_SECRET: "test-session-secret-0123456789abcdef",
      PUBLIC_URL: "http://localhost:3000",
      LOG_LEVEL: "silent",
      DATA_DIR: "/tmp/svc-web-test",
    };
    try {
      overrideWebContext({
        config: loadWebConfig({
          ...base,
          BACKEND_URL: `http://127.0.0.1:${await freePort()}`,
          INTERNAL_API_KEY,
        }),
      });
      const down = await list(jar);
      expect(down.status).toBe(502);
      expect((await down.json()).code).toBe("backend_unavailable");
      overrideWebContext({
        config: loadWebConfig({
          ...base,
          BACKEND_URL: backend.url,
          INTERNAL_API_KEY: "wrong-key-0123456789abcdef",
        }),
      });
      const refused = await list(jar);
      expect(refused.status).toBe(502);
      expect(await refused.json()).toEqual({ error: "the backend answered 403", code: "backend_error" });
    } finally {
      overrideWebContext({
        config: loadWebConfig({ ...base, BACKEND_URL: backend.url, INTERNAL_API_KEY, HMAC_SECRET }),
      });
    }
  });
});
