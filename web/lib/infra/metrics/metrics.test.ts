/** Route templates; what /metrics answers is metrics.running.test.ts's (through the running web). */
import { describe, expect, it } from "vitest";
import { routeTemplateOf } from "./index";

describe("route templates", () => {
  const template = (path: string, params?: Record<string, string | string[] | undefined>) =>
    routeTemplateOf(
      new Request(`http://localhost:3000${path}`),
      params ? { params: Promise.resolve(params) } : undefined,
    );

  it("replaces each dynamic segment's value by its name, in path order", async () => {
    expect(await template("/api/keys")).toBe("/api/keys");
    expect(await template("/api/keys/key_1", { id: "key_1" })).toBe("/api/keys/[id]");
    expect(await template("/api/agents/keys/x/keys", { agentId: "keys", file: "keys" })).toBe(
      "/api/agents/[agentId]/x/[file]",
    );
    expect(await template("/api/files/a%20b/c", { name: "a b" })).toBe("/api/files/[name]/c");
    expect(await template("/docs/assets/a/b/c.js", { path: ["a", "b", "c.js"] })).toBe(
      "/docs/assets/[...path]",
    );
    expect(await template("/docs", { path: undefined })).toBe("/docs");
  });

  it("reads the path alone: no query, no fragment", async () => {
    expect(await template("/api/keys?limit=5#top")).toBe("/api/keys");
    expect(await template("/api/keys/key_1?x=/y", { id: "key_1" })).toBe("/api/keys/[id]");
    expect(await template("/api//keys#a?b")).toBe("/api//keys");
    expect(await template("")).toBe("/");
  });
});
