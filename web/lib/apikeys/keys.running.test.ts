/**
 * API keys through the REAL running web and backend (issue 26 item 8): a key made in Settings' API, sent by
 * a program as `Authorization: Bearer svc_…` without cookies, reaches what its scopes allow — deploy, chat,
 * the job list, files, the permission socket — and nothing else: a missing scope is 403
 * `insufficient_scope` naming it, an expired key 401 `api_key_expired`, the account and key routes refuse
 * every key. The backend runs without a job worker, so the deploy and the chat stay queued.
 */
import { newId, sealGatewayToken } from "@svc/common";
import {
  RUNNING_DATA_ENCRYPTION_KEY,
  RUNNING_SESSION_SECRET,
  useRunningServers,
} from "@svc/common/testing/running-servers";
import { agents, apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { signedInUser, useRunningWebContext, webContext } from "../infra/testing";

useRunningWebContext({ SESSION_SECRET: RUNNING_SESSION_SECRET });
const servers = useRunningServers({ backend: { JOB_WORKER_ENABLED: "false" }, web: {} });

// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

/** A key made the way Settings makes it: the session's POST /api/keys on the running web. */
async function createKey(cookie: string, scopes: string[], expiresInDays: number | null = null) {
  const res = await fetch(`${servers.web.url}/api/keys`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ name: `script ${scopes.join(" ")}`, scopes, expiresInDays }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; key: string; scopes: string[]; expiresAt: string | null };
}

/** A program's request with the key: no cookies, no browser headers. */
function withKey(key: string, path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("authorization", `Bearer ${key}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  return fetch(`${servers.web.url}${path}`, {
    ...rest,
    headers,
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
}

async function expectRefusal(res: Response, status: number, code: string, scope?: string) {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(status);
  // The web's shape `{error: message, code}`, or the runtime routes' `{error: code, message}`.
  expect(body.code ?? body.error).toBe(code);
  if (scope) {
    expect(body.scope).toBe(scope);
    expect(body.code ? body.error : body.message).toContain(scope);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", scope="${scope}"`);
  }
}

describe("API keys through the running web", () => {
  it("a key with agent, chat, jobs and files scopes deploys, chats, lists jobs and uses files", async () => {
    const { user, jar } = await signedInUser();
    const { key, scopes, expiresAt } = await createKey(
      jar.header(),
      ["agent:write", "chat:write", "jobs:read", "files:write"],
      30,
    );
    expect(scopes).toEqual(["agent:write", "chat:write", "jobs:read", "files:write"]);
    expect(expiresAt).not.toBeNull();

    // Deploy.
    const deployed = await withKey(key, "/api/provision", { method: "POST", json: { name: "Scripted" } });
    expect(deployed.status, await deployed.clone().text()).toBe(202);
    const { agentId, job } = (await deployed.json()) as Json;
    expect(job).toMatchObject({ jobType: "provision_managed_runtime", status: "queued" });
    expect((await withKey(key, "/api/runtime/controls")).status).toBe(200);

    // List jobs: the deploy is there.
    const listed = await withKey(key, "/api/jobs");
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as Json).jobs.map((j: Json) => j.id)).toContain(job.id);
    const one = await withKey(key, `/api/jobs/${job.id}`);
    expect(one.status).toBe(200);

    // Chat, once the agent runs somewhere (its address and gateway token as a finished deploy leaves them).
    await webContext()
      .db.update(agents)
      .set({
        url: "http://127.0.0.1:9",
        gatewayTokenEncrypted: sealGatewayToken(RUNNING_DATA_ENCRYPTION_KEY, "d".repeat(64)),
        status: "running",
      })
      .where(eq(agents.id, agentId));
    const chat = await withKey(key, "/api/gateway/chat", { method: "POST", json: { message: "hello" } });
    expect(chat.status, await chat.clone().text()).toBe(202);
    expect(await chat.json()).toMatchObject({ queued: true, agentId, status: "queued" });

    // Files: upload, list, download, delete.
    const form = new FormData();
    form.append("agentId", agentId);
    form.append("file", new Blob(["notes from a script\n"], { type: "text/plain" }), "notes.txt");
    const uploaded = await withKey(key, "/api/files", { method: "POST", body: form });
    expect(uploaded.status, await uploaded.clone().text()).toBe(201);
    const { file } = (await uploaded.json()) as Json;
    const files = await withKey(key, "/api/files");
    expect(((await files.json()) as Json).files.map((f: Json) => f.id)).toEqual([file.id]);
    const download = await withKey(key, `/api/files?download=${file.id}`);
    expect(await download.text()).toBe("notes from a script\n");
    const removed = await withKey(key, "/api/files", { method: "DELETE", json: { fileId: file.id } });
    expect(removed.status).toBe(200);

    // The key was recorded as used; the user is its owner.
    const [row] = await webContext().db.select().from(apiKeys).where(eq(apiKeys.userId, user.id));
    expect(row.lastUsedAt).not.toBeNull();
  }, 60_000);

  it("a missing scope is 403 insufficient_scope naming it, before anything happens", async () => {
    const { user, jar } = await signedInUser();
    const { key } = await createKey(jar.header(), ["jobs:read", "files:read"]);
    await expectRefusal(
      await withKey(key, "/api/provision", { method: "POST", json: {} }),
      403,
      "insufficient_scope",
      "agent:write",
    );
    await expectRefusal(
      await withKey(key, "/api/gateway/chat", { method: "POST", json: { message: "hi" } }),
      403,
      "insufficient_scope",
      "chat:write",
    );
    await expectRefusal(
      await withKey(key, "/api/files", { method: "DELETE", json: { fileId: "file_x" } }),
      403,
      "insufficient_scope",
      "files:write",
    );
    // The runtime routes answer in the backend's shape, the scope named the same way.
    await expectRefusal(
      await withKey(key, "/api/runtime/restart", { method: "POST" }),
      403,
      "insufficient_scope",
      "agent:write",
    );
    expect((await withKey(key, "/api/jobs")).status).toBe(200);
    expect((await withKey(key, "/api/files")).status).toBe(200);
    // Nothing was deployed.
    expect(await webContext().db.select().from(agents).where(eq(agents.userId, user.id))).toEqual([]);
  }, 60_000);

  it("an expired key is 401 api_key_expired; a deleted one 401 unauthorized", async () => {
    const { jar } = await signedInUser();
    const expiring = await createKey(jar.header(), ["all"], 7);
    expect((await withKey(expiring.key, "/api/jobs")).status).toBe(200);
    await webContext()
      .db.update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiKeys.id, expiring.id));
    await expectRefusal(await withKey(expiring.key, "/api/jobs"), 401, "api_key_expired");
    const listed = await fetch(`${servers.web.url}/api/keys`, { headers: { cookie: jar.header() } });
    expect(((await listed.json()) as Json).keys).toEqual([
      expect.objectContaining({ id: expiring.id, expired: true }),
    ]);

    const deleted = await createKey(jar.header(), ["all"]);
    const del = await fetch(`${servers.web.url}/api/keys/${deleted.id}`, {
      method: "DELETE",
      headers: { cookie: jar.header() },
    });
    expect(del.status).toBe(200);
    await expectRefusal(await withKey(deleted.key, "/api/jobs"), 401, "unauthorized");
  }, 60_000);

  it("account, API key, passkey and email routes refuse even an `all` key (403), changing nothing", async () => {
    const { jar } = await signedInUser();
    const { id, key } = await createKey(jar.header(), ["all"]);
    const refused: Array<[string, RequestInit & { json?: unknown }]> = [
      ["/api/account", {}],
      ["/api/keys", {}],
      ["/api/keys", { method: "POST", json: { name: "escalate", scopes: ["all"] } }],
      [`/api/keys/${id}`, {}],
      [`/api/keys/${id}`, { method: "DELETE" }],
      ["/api/passkeys", {}],
      [`/api/passkeys/${newId("pk")}`, { method: "DELETE" }],
      ["/api/passkey/register/options", { method: "POST" }],
      ["/api/auth/verify-email", { method: "POST" }],
    ];
    for (const [path, init] of refused) {
      await expectRefusal(await withKey(key, path, init), 403, "api_key_not_allowed");
    }
    const keys = await fetch(`${servers.web.url}/api/keys`, { headers: { cookie: jar.header() } });
    expect(((await keys.json()) as Json).keys.map((k: Json) => k.id)).toEqual([id]);
  }, 60_000);

  it("cross-site protection stays for cookie sessions; a key's request (no cookies) is not a browser's", async () => {
    const { jar } = await signedInUser();
    const { key } = await createKey(jar.header(), ["files:write"]);
    const fromElsewhere = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    const cookieDelete = await fetch(`${servers.web.url}/api/files`, {
      method: "DELETE",
      headers: { cookie: jar.header(), "content-type": "application/json", ...fromElsewhere },
      body: JSON.stringify({ fileId: "file_x" }),
    });
    await expectRefusal(cookieDelete, 403, "cross_site_request");
    const keyDelete = await withKey(key, "/api/files", { method: "DELETE", json: { fileId: "file_x" } });
    expect(keyDelete.status).toBe(404);
  }, 60_000);

  it("a key with approvals:write opens the permission socket; once the key is deleted its ticket opens none", async () => {
    const { user, jar } = await signedInUser();
    const { id, key } = await createKey(jar.header(), ["approvals:write"]);
    const ticketAnswer = await withKey(key, "/api/permissions/ws-ticket");
    expect(ticketAnswer.status).toBe(200);
    const { token } = (await ticketAnswer.json()) as Json;
    const socketUrl = `${servers.web.url.replace("http", "ws")}/ws/permissions?userId=${user.id}&token=${encodeURIComponent(token)}`;

    const first = await openSocket(socketUrl);
    expect(first).toMatchObject({ type: "connected", userId: user.id });

    await fetch(`${servers.web.url}/api/keys/${id}`, { method: "DELETE", headers: { cookie: jar.header() } });
    expect(await openSocket(socketUrl)).toEqual({ closed: 4003 });
  }, 60_000);
});

/** Opens the socket: its first frame, or the close code when it closes first. */
function openSocket(url: string): Promise<Json> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("message", (data) => {
      resolve(JSON.parse(String(data)) as Json);
      ws.close();
    });
    ws.once("close", (code) => resolve({ closed: code }));
    ws.once("error", reject);
  });
}
