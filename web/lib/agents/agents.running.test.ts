/**
 * The agent's name through the running web server and backend (a real client, `fetch`), issue 26 items 4
 * and 6: `GET /api/agents` lists the user's agents by name, `PATCH /api/agents/{agentId}` renames one (its
 * owner only; a bad name is a 400 that changes nothing), a new agent is named after its account, claims
 * carry the claiming agent's name (and `GET /api/jobs/claims` lists the caller's), and the runtime health
 * answer carries the name and reads `stopped` for an agent whose service the platform stopped (nothing
 * answers at its URL), not `unreachable`.
 */
import { freePort, newId } from "@svc/common";
import { RUNNING_SESSION_SECRET, useRunningServers } from "@svc/common/testing/running-servers";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { publishedListing } from "../board/testing";
import { type CookieJar, signedInUser, useWebTestContext, webContext } from "../infra/testing";

const { clock } = useWebTestContext({ SESSION_SECRET: RUNNING_SESSION_SECRET });
const servers = useRunningServers({ backend: {}, web: {} });
beforeAll(() => {
  // Sessions made here are checked by the server's own clock.
  clock.set(Date.now());
});

async function seed(userId: string, values: Partial<typeof agents.$inferInsert> = {}) {
  const id = newId("agt");
  await webContext()
    .db.insert(agents)
    .values({ id, userId, name: "Scout", status: "running", ...values });
  return id;
}

function call(jar: CookieJar, path: string, init: { method?: string; json?: unknown } = {}) {
  return fetch(`${servers.web.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      cookie: jar.header(),
      ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
}

async function nameOf(agentId: string) {
  const [row] = await webContext().db.select().from(agents).where(eq(agents.id, agentId));
  return row.name;
}

describe("GET /api/agents", () => {
  it("lists the caller's agents, newest first, by name; nobody else's; 401 without a session", async () => {
    const { user, jar } = await signedInUser();
    const other = await signedInUser();
    const older = await seed(user.id, { name: "Old scout", createdAt: new Date("2026-01-01T00:00:00Z") });
    const newer = await seed(user.id, { name: "New scout", createdAt: new Date("2026-02-01T00:00:00Z") });
    await seed(other.user.id, { name: "Not mine" });
    const res = await call(jar, "/api/agents");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.agents.map((a: { id: string; name: string }) => [a.id, a.name])).toEqual([
      [newer, "New scout"],
      [older, "Old scout"],
    ]);
    expect(body.agents[0]).toEqual({
      id: newer,
      name: "New scout",
      status: "running",
      createdAt: "2026-02-01T00:00:00.000Z",
      updatedAt: expect.any(String),
    });
    const anonymous = await fetch(`${servers.web.url}/api/agents`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: expect.any(String) });
  });
});

describe("PATCH /api/agents/{agentId}", () => {
  it("renames the caller's agent (trimmed) and answers it", async () => {
    const { user, jar } = await signedInUser();
    const id = await seed(user.id);
    const res = await call(jar, `/api/agents/${id}`, { method: "PATCH", json: { name: "  Night owl " } });
    expect(res.status).toBe(200);
    expect((await res.json()).agent).toMatchObject({ id, name: "Night owl", status: "running" });
    expect(await nameOf(id)).toBe("Night owl");
  });

  it("another user's agent looks like none: 404, and its name stays", async () => {
    const { jar } = await signedInUser();
    const other = await signedInUser();
    const id = await seed(other.user.id, { name: "Theirs" });
    const res = await call(jar, `/api/agents/${id}`, { method: "PATCH", json: { name: "Mine now" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "not_found", error: "agent not found" });
    expect(await nameOf(id)).toBe("Theirs");
    const none = await call(jar, "/api/agents/agt_missing", { method: "PATCH", json: { name: "X" } });
    expect(none.status).toBe(404);
  });

  it.each([
    [{}, "Agent name is required"],
    [{ name: 7 }, "Agent name must be a string"],
    [{ name: "   " }, "Agent name must not be empty"],
    [{ name: "x".repeat(61) }, "Agent name must be at most 60 characters"],
    [{ name: "Ok", colour: "red" }, "unknown field: colour"],
  ])("400 for %j (%s), and the name stays", async (json, message) => {
    const { user, jar } = await signedInUser();
    const id = await seed(user.id);
    const res = await call(jar, `/api/agents/${id}`, { method: "PATCH", json });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toContain(message);
    // An error about the name says so, for the form to show it beside its field.
    expect(body.field).toBe(message.startsWith("Agent name") ? "name" : undefined);
    expect(await nameOf(id)).toBe("Scout");
  });

  it("401 without a session; 400 for a body that is not JSON", async () => {
    const { user, jar } = await signedInUser();
    const id = await seed(user.id);
    const anonymous = await fetch(`${servers.web.url}/api/agents/${id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "X" }),
    });
    expect(anonymous.status).toBe(401);
    const bad = await fetch(`${servers.web.url}/api/agents/${id}`, {
      method: "PATCH",
      headers: { cookie: jar.header(), "content-type": "application/json" },
      body: "{name:",
    });
    expect(bad.status).toBe(400);
    expect(await nameOf(id)).toBe("Scout");
  });
});

describe("the agent's name elsewhere", () => {
  it("a first deploy names the agent after its account", async () => {
    const { user, jar } = await signedInUser("ada-lovelace@example.com");
    const res = await call(jar, "/api/provision", { method: "POST", json: {} });
    expect(res.status).toBe(202);
    const { agentId } = await res.json();
    expect(await nameOf(agentId)).toBe(`${user.name}'s agent`);
    expect((await (await call(jar, "/api/agents")).json()).agents[0]).toMatchObject({
      id: agentId,
      name: "ada-lovelace's agent",
    });
  });

  it("a claim and GET /api/jobs/claims name the claiming agent; a claimed job is listed for that agent", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user, jar } = await signedInUser();
    const agentId = await seed(user.id, { name: "Claimer" });
    const claimed = await call(jar, `/api/jobs/${listing.id}/claim`, {
      method: "POST",
      json: { claimerAgentId: agentId },
    });
    expect(claimed.status).toBe(201);
    expect((await claimed.json()).claim).toMatchObject({
      claimerAgentId: agentId,
      claimerAgentName: "Claimer",
    });
    const mine = await call(jar, "/api/jobs/claims");
    expect(mine.status).toBe(200);
    expect((await mine.json()).claims).toEqual([
      expect.objectContaining({ jobId: listing.id, claimerAgentId: agentId, claimerAgentName: "Claimer" }),
    ]);
    // The listing's owner reads the claim by the agent's name, renamed since.
    await call(jar, `/api/agents/${agentId}`, { method: "PATCH", json: { name: "Renamed" } });
    const theirs = await call(owner.jar, `/api/jobs/${listing.id}/claims`);
    expect((await theirs.json()).claims).toEqual([
      expect.objectContaining({ claimerAgentId: agentId, claimerAgentName: "Renamed" }),
    ]);
  });

  it("GET /api/runtime/health names the agent, and a stopped one reads stopped, not unreachable", async () => {
    const { user, jar } = await signedInUser();
    // Nothing listens at the URL: the platform stopped the agent's service.
    const url = `http://127.0.0.1:${await freePort()}`;
    await seed(user.id, { name: "Sleeper", url, status: "stopped" });
    const res = await call(jar, "/api/runtime/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      agentName: "Sleeper",
      status: "stopped",
      statusReason: "the agent's service is stopped",
    });
  });
});
