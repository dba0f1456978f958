/** Skill MCP servers against loopback MCP servers speaking the real protocol (one per built-in skill). */

import { metricsRegistry } from "@svc/common/metrics/index";
import { startFakeMcpServer, startFakeMcpServers } from "@svc/common/testing";
import { skillActivations } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as CALL } from "@/app/api/mcp/[skillId]/call/[toolName]/route";
import { POST as ACTIVATE, DELETE } from "@/app/api/mcp/[skillId]/route";
import { GET as LIST } from "@/app/api/mcp/route";
import { makeRequest, signedInUser, type TestRequest, useWebTestContext, webContext } from "../infra/testing";
import { closeMcpClients } from "./mcp-client";
import { MAX_ACTIVE_SKILLS, SKILL_IDLE_MS } from "./service";

const servers = await startFakeMcpServers({ context7: { apiKey: "ctx7-test-key" } });
const sessionful = await startFakeMcpServer("grep_app", { sessions: true });
const flaky = await startFakeMcpServer("websearch");
const spares = Array.from({ length: 6 }, (_, i) => ({ id: `spare${i + 1}`, url: servers.websearch.url }));

const { clock } = useWebTestContext({
  MCP_WEBSEARCH_URL: servers.websearch.url,
  MCP_CONTEXT7_URL: servers.context7.url,
  MCP_GREP_APP_URL: servers.grep_app.url,
  CONTEXT7_API_KEY: "ctx7-test-key",
  MCP_SKILLS: JSON.stringify([
    { id: "sessionful", url: sessionful.url },
    { id: "flaky", url: flaky.url },
    ...spares,
  ]),
});

afterAll(async () => {
  await closeMcpClients();
  await Promise.all([servers.close(), sessionful.close(), flaky.close()]);
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

async function activate(jar: Jar | undefined, skillId: string, request: TestRequest = {}) {
  const res = await ACTIVATE(makeRequest({ method: "POST", path: `/api/mcp/${skillId}`, jar, ...request }), {
    params: Promise.resolve({ skillId }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
async function deactivate(jar: Jar, skillId: string) {
  const res = await DELETE(makeRequest({ method: "DELETE", path: `/api/mcp/${skillId}`, jar }), {
    params: Promise.resolve({ skillId }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
async function callTool(
  jar: Jar | undefined,
  skillId: string,
  toolName: string,
  json?: unknown,
  body?: string,
) {
  const res = await CALL(
    makeRequest({
      method: "POST",
      path: `/api/mcp/${skillId}/call/${toolName}`,
      jar,
      json,
      body,
      headers: body !== undefined ? { "content-type": "application/json" } : {},
    }),
    { params: Promise.resolve({ skillId, toolName }) },
  );
  return { status: res.status, body: (await res.json()) as Json };
}
const initializeCount = (server: { requests: Array<{ rpcMethod?: string }> }) =>
  server.requests.filter((r) => r.rpcMethod === "initialize").length;
const activeRows = (userId: string) =>
  webContext().db.select().from(skillActivations).where(eq(skillActivations.userId, userId));

describe("POST /api/mcp/:skillId", () => {
  it("connects, lists the tools with their input schemas and records the activation", async () => {
    const { user, jar } = await signedInUser();
    const { status, body } = await activate(jar, "websearch");
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      skillId: "websearch",
      mcp: {
        name: "exa-search-server",
        version: "3.1.2",
        tools: [
          {
            name: "web_search_exa",
            description: expect.stringContaining("Search the web"),
            inputSchema: expect.objectContaining({
              type: "object",
              properties: expect.objectContaining({ query: expect.objectContaining({ type: "string" }) }),
              required: ["query"],
            }),
          },
          expect.objectContaining({ name: "web_fetch_exa" }),
        ],
        startedAt: clock.now().toISOString(),
      },
    });
    const rows = await activeRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      skillId: "websearch",
      serverName: "exa-search-server",
      serverVersion: "3.1.2",
    });
    expect(rows[0].tools.map((t) => t.name)).toEqual(["web_search_exa", "web_fetch_exa"]);
  });

  it("lists each built-in's real tools (Context7 with its API key, grep.app)", async () => {
    const { jar } = await signedInUser();
    const ctx7 = await activate(jar, "context7");
    expect(ctx7.status).toBe(200);
    expect(ctx7.body.mcp.name).toBe("Context7");
    expect(ctx7.body.mcp.tools.map((t: Json) => t.name)).toEqual(["resolve-library-id", "query-docs"]);
    expect(ctx7.body.mcp.tools[1].inputSchema.required).toEqual(["libraryId", "query"]);
    expect(servers.context7.requests.some((r) => r.headers.context7_api_key === "ctx7-test-key")).toBe(true);
    const grep = await activate(jar, "grep_app");
    expect(grep.body.mcp.tools.map((t: Json) => t.name)).toEqual(["searchGitHub"]);
  });

  it("answers 404 for a skill that is not configured, 401 without a session", async () => {
    const { user, jar } = await signedInUser();
    const unknown = await activate(jar, "nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("unknown_skill");
    expect(await activeRows(user.id)).toHaveLength(0);
    expect((await activate(undefined, "websearch")).status).toBe(401);
  });
});

describe("POST /api/mcp/:skillId/call/:toolName", () => {
  it("returns the tool's content, parameters given directly or under `parameters`", async () => {
    const { jar } = await signedInUser();
    await activate(jar, "websearch");
    const direct = await callTool(jar, "websearch", "web_search_exa", { query: "mcp", numResults: 2 });
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual({
      skillId: "websearch",
      toolName: "web_search_exa",
      success: true,
      result: [{ type: "text", text: expect.any(String) }],
    });
    expect(JSON.parse(direct.body.result[0].text).results).toEqual([
      { title: "mcp — result 1", url: "https://example.com/mcp/1" },
      { title: "mcp — result 2", url: "https://example.com/mcp/2" },
    ]);
    const wrapped = await callTool(jar, "websearch", "web_search_exa", { parameters: { query: "zod" } });
    expect(wrapped.status).toBe(200);
    expect(JSON.parse(wrapped.body.result[0].text).results).toHaveLength(3);
    expect(wrapped.body.result[0].text).toContain("zod — result 1");
  });

  it("reuses the process's client: no new handshake per call", async () => {
    const { jar } = await signedInUser();
    await activate(jar, "grep_app");
    const before = initializeCount(servers.grep_app);
    for (const query of ["useState(", "createMcpHandler"]) {
      const { status, body } = await callTool(jar, "grep_app", "searchGitHub", { query });
      expect(status).toBe(200);
      expect(body.result[0].text).toContain(query);
    }
    expect(initializeCount(servers.grep_app)).toBe(before);
  });

  it("a tool result with isError is 400 carrying the tool's text", async () => {
    const counted = async (outcome: string) => {
      const metric = await metricsRegistry().getSingleMetric("skill_tool_calls_total")?.get();
      return (
        metric?.values.find((v) => v.labels.skill === "context7" && v.labels.outcome === outcome)?.value ?? 0
      );
    };
    const errorsBefore = await counted("tool_error");
    const okBefore = await counted("ok");
    const { jar } = await signedInUser();
    await activate(jar, "context7");
    const { status, body } = await callTool(jar, "context7", "query-docs", {
      libraryId: "react",
      query: "hooks",
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      skillId: "context7",
      toolName: "query-docs",
      success: false,
      error: 'The library "react" does not exist. Use resolve-library-id first.',
    });
    const ok = await callTool(jar, "context7", "query-docs", {
      libraryId: "/facebook/react",
      query: "hooks",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result[0].text).toBe('Documentation of /facebook/react for "hooks"');
    expect(await counted("tool_error")).toBe(errorsBefore + 1);
    expect(await counted("ok")).toBe(okBefore + 1);
  });

  it("arguments that fail the tool's schema, an unknown tool, or an empty call to a tool needing arguments are 400", async () => {
    const { jar } = await signedInUser();
    await activate(jar, "websearch");
    const bad = await callTool(jar, "websearch", "web_search_exa", { query: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    expect(bad.body.error).toMatch(/query/);
    const empty = await callTool(jar, "websearch", "web_search_exa", undefined, "");
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/query/);
    const unknown = await callTool(jar, "websearch", "no_such_tool", {});
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ skillId: "websearch", toolName: "no_such_tool", success: false });
    const notObject = await callTool(jar, "websearch", "web_search_exa", { parameters: [1] });
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toMatch(/parameters/);
  });

  it("a body that is not a JSON object is 400 in the call's shape, nothing called; an unknown skill is 404 first", async () => {
    const { jar, user } = await signedInUser();
    await activate(jar, "websearch");
    const [before] = await activeRows(user.id);
    const calls = servers.websearch.toolCalls();
    clock.advance(60_000);
    const raw = async (skillId: string, body: string, contentType: string) => {
      const res = await CALL(
        makeRequest({
          method: "POST",
          path: `/api/mcp/${skillId}/call/web_search_exa`,
          jar,
          body,
          headers: { "content-type": contentType },
        }),
        { params: Promise.resolve({ skillId, toolName: "web_search_exa" }) },
      );
      return { status: res.status, body: (await res.json()) as Json };
    };
    const cases: Array<[string, string, string, string]> = [
      ['{"query": "x"}', "text/plain", "bad_content_type", "Content-Type must be application/json"],
      ["{not json", "application/json", "invalid_json", "request body is not valid JSON"],
      ["[1, 2]", "application/json", "invalid_body", "request body must be a JSON object"],
      ['"query"', "application/json", "invalid_body", "request body must be a JSON object"],
    ];
    for (const [body, contentType, code, error] of cases) {
      expect(await raw("websearch", body, contentType), body).toEqual({
        status: 400,
        body: { skillId: "websearch", toolName: "web_search_exa", success: false, error, code },
      });
      const unknown = await raw("nope", body, contentType);
      expect(unknown.status, body).toBe(404);
      expect(unknown.body.code).toBe("unknown_skill");
    }
    expect(servers.websearch.toolCalls()).toBe(calls);
    expect((await activeRows(user.id))[0]?.lastUsedAt).toEqual(before?.lastUsedAt);
  });

  it("an inactive skill is 400, and another user's activation does not count", async () => {
    const owner = await signedInUser();
    const other = await signedInUser();
    await activate(owner.jar, "grep_app");
    const calls = sessionful.toolCalls() + servers.grep_app.toolCalls();
    const { status, body } = await callTool(other.jar, "grep_app", "searchGitHub", { query: "x" });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      skillId: "grep_app",
      toolName: "searchGitHub",
      success: false,
      code: "skill_not_active",
    });
    expect(sessionful.toolCalls() + servers.grep_app.toolCalls()).toBe(calls);
    expect((await callTool(other.jar, "nope", "x", {})).status).toBe(404);
    expect((await callTool(undefined, "grep_app", "searchGitHub", { query: "x" })).status).toBe(401);
  });

  it("a transport failure is 500 with success false; the skill works again once the server is back", async () => {
    const { jar } = await signedInUser();
    expect((await activate(jar, "flaky")).status).toBe(200);
    await flaky.stop();
    const down = await callTool(jar, "flaky", "web_search_exa", { query: "down" });
    expect(down.status).toBe(500);
    expect(down.body).toMatchObject({ skillId: "flaky", toolName: "web_search_exa", success: false });
    expect(down.body.error).toMatch(/connection refused|could not be reached/i);
    await flaky.restart();
    const up = await callTool(jar, "flaky", "web_search_exa", { query: "up" });
    expect(up.status).toBe(200);
  });

  it("an answer over 1 MB is refused as a transport failure (500)", async () => {
    const { jar } = await signedInUser();
    await activate(jar, "websearch");
    const big = await callTool(jar, "websearch", "web_fetch_exa", {
      url: "https://example.com/big",
      maxCharacters: 1_100_000,
    });
    expect(big.status).toBe(500);
    expect(big.body.error).toMatch(/1048576-byte limit/);
    const small = await callTool(jar, "websearch", "web_fetch_exa", {
      url: "https://example.com/s",
      maxCharacters: 5,
    });
    expect(small.body.result[0].text).toBe("Content of https://example.com/s: xxxxx");
  });

  it("a server that forgot the session (404): one new handshake and the call succeeds", async () => {
    const { jar } = await signedInUser();
    expect((await activate(jar, "sessionful")).status).toBe(200);
    expect((await callTool(jar, "sessionful", "searchGitHub", { query: "before" })).status).toBe(200);
    const opened = sessionful.sessionsOpened();
    const oldSession = sessionful.requests.findLast((r) => r.rpcMethod === "tools/call")?.headers[
      "mcp-session-id"
    ];
    expect(oldSession).toEqual(expect.any(String));
    await sessionful.forgetSessions();
    const after = await callTool(jar, "sessionful", "searchGitHub", { query: "after forgetting" });
    expect(after.body, JSON.stringify(after.body)).toMatchObject({ success: true });
    expect(after.status).toBe(200);
    expect(after.body.result[0].text).toContain("after forgetting");
    expect(sessionful.sessionsOpened()).toBe(opened + 1);
    // The call went out with the old session id first (answered 404), then again with the new one.
    const calls = sessionful.requests.filter((r) => r.rpcMethod === "tools/call").slice(-2);
    expect(calls[0].headers["mcp-session-id"]).toBe(oldSession);
    expect(calls[1].headers["mcp-session-id"]).not.toBe(oldSession);
  });

  it("a server restart (sessions and connections gone): the call still succeeds", async () => {
    const { jar } = await signedInUser();
    expect((await activate(jar, "sessionful")).status).toBe(200);
    expect((await callTool(jar, "sessionful", "searchGitHub", { query: "before" })).status).toBe(200);
    const opened = sessionful.sessionsOpened();
    await sessionful.restart();
    const after = await callTool(jar, "sessionful", "searchGitHub", { query: "after restart" });
    expect(after.body, JSON.stringify(after.body)).toMatchObject({ success: true });
    expect(after.body.result[0].text).toContain("after restart");
    expect(sessionful.sessionsOpened()).toBe(opened + 1);
  });
});

describe("activation lifetime", () => {
  it("an activation removed by another process answers 400 even right after a successful call", async () => {
    const { user, jar } = await signedInUser();
    await activate(jar, "grep_app");
    expect((await callTool(jar, "grep_app", "searchGitHub", { query: "warm" })).status).toBe(200);
    // Another web process deactivates it: only the database knows.
    await webContext().db.delete(skillActivations).where(eq(skillActivations.userId, user.id));
    const gone = await callTool(jar, "grep_app", "searchGitHub", { query: "late" });
    expect(gone.status).toBe(400);
    expect(gone.body.code).toBe("skill_not_active");
    expect((await callTool(jar, "grep_app", "searchGitHub", { query: "later" })).status).toBe(400);
  });

  it("expires after 30 idle minutes (injected clock); each call counts as use", async () => {
    const { user, jar } = await signedInUser();
    await activate(jar, "websearch");
    clock.advance(SKILL_IDLE_MS - 1000);
    expect((await callTool(jar, "websearch", "web_search_exa", { query: "a" })).status).toBe(200);
    clock.advance(SKILL_IDLE_MS - 1000);
    expect((await callTool(jar, "websearch", "web_search_exa", { query: "b" })).status).toBe(200);
    clock.advance(SKILL_IDLE_MS + 1);
    const expired = await callTool(jar, "websearch", "web_search_exa", { query: "c" });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe("skill_not_active");
    const listed = await LIST(makeRequest({ path: "/api/mcp", jar }));
    const skills = ((await listed.json()) as Json).skills as Json[];
    expect(skills.find((s) => s.id === "websearch")).toMatchObject({ active: false, mcp: null });
    expect(await activeRows(user.id)).toHaveLength(1);
  });

  it(`keeps at most ${MAX_ACTIVE_SKILLS} per user: the least recently used goes`, async () => {
    const { user, jar } = await signedInUser();
    const ids = ["websearch", "context7", "grep_app", "sessionful", "flaky", ...spares.map((s) => s.id)];
    expect(ids).toHaveLength(MAX_ACTIVE_SKILLS + 1);
    for (const id of ids.slice(0, MAX_ACTIVE_SKILLS)) {
      clock.advance(1000);
      expect((await activate(jar, id)).status).toBe(200);
    }
    // websearch is the oldest activation, but a call makes context7 the least recently used.
    clock.advance(1000);
    expect((await callTool(jar, "websearch", "web_search_exa", { query: "keep" })).status).toBe(200);
    clock.advance(1000);
    expect((await activate(jar, ids[MAX_ACTIVE_SKILLS])).status).toBe(200);
    const rows = await activeRows(user.id);
    expect(rows).toHaveLength(MAX_ACTIVE_SKILLS);
    expect(rows.map((r) => r.skillId).sort()).toEqual(ids.filter((id) => id !== "context7").sort());
    expect((await callTool(jar, "context7", "resolve-library-id", { libraryName: "react" })).status).toBe(
      400,
    );
  });

  it("DELETE ends the activation; GET /api/mcp lists every skill without URLs or keys", async () => {
    const { jar } = await signedInUser();
    await activate(jar, "context7");
    const listed = (await (await LIST(makeRequest({ path: "/api/mcp", jar }))).json()) as Json;
    expect(listed.skills.map((s: Json) => s.id)).toEqual([
      "websearch",
      "context7",
      "grep_app",
      "sessionful",
      "flaky",
      ...spares.map((s) => s.id),
    ]);
    expect(listed.skills[1]).toMatchObject({ id: "context7", builtIn: true, active: true });
    expect(JSON.stringify(listed)).not.toContain("ctx7-test-key");
    expect(JSON.stringify(listed)).not.toContain("127.0.0.1");
    const gone = await deactivate(jar, "context7");
    expect(gone).toEqual({
      status: 200,
      body: { success: true, skillId: "context7", message: 'skill "context7" deactivated' },
    });
    const call = await callTool(jar, "context7", "resolve-library-id", { libraryName: "react" });
    expect(call.status).toBe(400);
    expect((await deactivate(jar, "context7")).body.message).toBe('skill "context7" was not active');
    expect((await deactivate(jar, "nope")).status).toBe(404);
  });
});
