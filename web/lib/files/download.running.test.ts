/**
 * The files download's contract as the running web sends it (web/server.ts, Next, the real client): the
 * Content-Type, Content-Disposition and Content-Length, the bytes intact, and the error answers.
 * The storage drivers' own behaviour is routes.suite.ts's.
 */
import { randomBytes } from "node:crypto";
import { truncate } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { agents } from "@svc/db/schema";
import { describe, expect, it } from "vitest";
import { useRunningServers } from "../../../common/testing/running-servers";
import { signedInUser, useRunningWebContext, webContext } from "../infra/testing";

useRunningWebContext();
const servers = useRunningServers({ web: {} });

async function userWithAgent() {
  const signedIn = await signedInUser();
  const [agent] = await webContext()
    .db.insert(agents)
    .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId: signedIn.user.id, name: "A" })
    .returning();
  return { ...signedIn, agent, cookie: signedIn.jar.header() };
}

/** Uploads through the running web as a browser's form would (fetch sends it with a Content-Length). */
async function uploaded(cookie: string, agentId: string, data: Buffer, filename: string, type: string) {
  const form = new FormData();
  form.append("agentId", agentId);
  form.append("file", new Blob([new Uint8Array(data)], { type }), filename);
  const res = await fetch(`${servers.web.url}/api/files`, {
    method: "POST",
    body: form,
    headers: { cookie },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file;
}

const download = (id: string, headers: Record<string, string> = {}) =>
  fetch(`${servers.web.url}/api/files?download=${encodeURIComponent(id)}`, { headers });

/** The answer's head as it came off the wire (fetch hides the framing headers of a decoded body). */
function rawHead(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>(
    (resolve, reject) => {
      const req = httpRequest(`${servers.web.url}${path}`, { headers }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("GET /api/files?download=<id> through the running web", () => {
  it("sends Content-Type, Content-Disposition: attachment; filename=<encoded>, Content-Length and the bytes", async () => {
    const { agent, cookie } = await userWithAgent();
    const data = randomBytes(200 * 1024);
    const file = await uploaded(cookie, agent.id, data, "photo 1.png", "image/png");
    const res = await download(file.id, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe("attachment; filename=photo_1.png");
    expect(res.headers.get("content-length")).toBe(String(data.length));
    expect(res.headers.get("transfer-encoding")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toContain("no-store");
    expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
  });

  it("a compressible file keeps its length too: sent as stored, never re-encoded on the way", async () => {
    const { agent, cookie } = await userWithAgent();
    const text = Buffer.from("the same line of notes\n".repeat(4000));
    const file = await uploaded(cookie, agent.id, text, "notes.txt", "text/plain");
    const head = await rawHead(`/api/files?download=${file.id}`, {
      cookie,
      "accept-encoding": "gzip, deflate, br",
    });
    expect(head.status).toBe(200);
    expect(head.headers["content-encoding"]).toBeUndefined();
    expect(head.headers["transfer-encoding"]).toBeUndefined();
    expect(head.headers["content-length"]).toBe(String(text.length));
    const res = await download(file.id, { cookie });
    expect(Buffer.from(await res.arrayBuffer()).equals(text)).toBe(true);
  });

  it("falls back to application/octet-stream", async () => {
    const { agent, cookie } = await userWithAgent();
    const file = await uploaded(cookie, agent.id, Buffer.from("plain"), "x", "");
    const res = await download(file.id, { cookie });
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-length")).toBe("5");
    expect(await res.text()).toBe("plain");
  });

  it("stored bytes shorter than the file's size never reach the client as a complete download", async () => {
    const { agent, cookie } = await userWithAgent();
    const file = await uploaded(cookie, agent.id, randomBytes(64 * 1024), "cut.bin", "application/x-cut");
    await truncate(join(servers.dataDir, "files", file.id), 1000);
    const res = await download(file.id, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(64 * 1024));
    await expect(res.arrayBuffer()).rejects.toThrow();
    // The server goes on serving.
    expect((await fetch(`${servers.web.url}/api/health`)).status).toBe(200);
  });

  it("404 for another user's file or an unknown id; 401 without a session", async () => {
    const owner = await userWithAgent();
    const file = await uploaded(owner.cookie, owner.agent.id, randomBytes(10), "a.bin", "application/x-a");
    const stranger = await userWithAgent();
    for (const id of [file.id, "file_unknown"]) {
      const res = await download(id, { cookie: stranger.cookie });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: "file not found", code: "not_found" });
    }
    const anonymous = await download(file.id);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).code).toBeTypeOf("string");
    expect((await download(file.id, { cookie: owner.cookie })).status).toBe(200);
  });
});
