import { describe, expect, it } from "vitest";
import { apiRouteMatcher } from "./api-fallback";

describe("apiRouteMatcher", () => {
  const routeOf = apiRouteMatcher([
    "/api/health",
    "/api/keys/[id]",
    "/api/keys/new",
    "/api/files/[...path]",
    "/api/files/[dir]/index",
    "/api/docs/[[...slug]]",
    "/api/runtime-version",
  ]);

  it("finds the route of static, dynamic and catch-all paths, with or without a trailing slash", () => {
    expect(routeOf("/api/health")).toBe("/api/health");
    expect(routeOf("/api/health/")).toBe("/api/health");
    expect(routeOf("/api/keys/key_1")).toBe("/api/keys/[id]");
    expect(routeOf("/api/files/a/b/c")).toBe("/api/files/[...path]");
    expect(routeOf("/api/docs")).toBe("/api/docs/[[...slug]]");
    expect(routeOf("/api/docs/a/b")).toBe("/api/docs/[[...slug]]");
    expect(routeOf("/api/runtime-version")).toBe("/api/runtime-version");
  });

  it("prefers the most specific route, as Next.js does", () => {
    expect(routeOf("/api/keys/new")).toBe("/api/keys/new");
    expect(routeOf("/api/files/a/index")).toBe("/api/files/[dir]/index");
  });

  it("finds none for what no route serves", () => {
    expect(routeOf("/api")).toBeNull();
    expect(routeOf("/api/healthz")).toBeNull();
    expect(routeOf("/api/keys")).toBeNull();
    expect(routeOf("/api/keys/key_1/extra")).toBeNull();
    expect(routeOf("/api/files")).toBeNull();
    expect(routeOf("/api/runtime-versionx")).toBeNull();
    expect(routeOf("/api/runtime.version")).toBeNull();
  });
});
