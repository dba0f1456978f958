import { describe, expect, it } from "vitest";
import { API_AREAS, API_SCOPES, grantsScope, isApiScope, normalizeScopes } from "./api-scopes";

describe("API key scopes", () => {
  it("are all, then read and write of each area", () => {
    expect(API_SCOPES).toHaveLength(1 + 2 * API_AREAS.length);
    expect(API_SCOPES[0]).toBe("all");
    expect(API_SCOPES).toContain("files:read");
    expect(isApiScope("files:write")).toBe(true);
    for (const other of ["account:read", "keys:write", "files", "files:admin", "ALL", ""]) {
      expect(isApiScope(other), other).toBe(false);
    }
  });

  it("write grants read of its area only; all grants every area", () => {
    expect(grantsScope(["files:write"], "files", "read")).toBe(true);
    expect(grantsScope(["files:write"], "files", "write")).toBe(true);
    expect(grantsScope(["files:read"], "files", "write")).toBe(false);
    expect(grantsScope(["files:write"], "jobs", "read")).toBe(false);
    expect(grantsScope([], "files", "read")).toBe(false);
    for (const area of API_AREAS) expect(grantsScope(["all"], area, "write")).toBe(true);
  });

  it("normalize to `all` alone, else each area once at its highest access, in the areas' order", () => {
    expect(normalizeScopes(["jobs:read", "files:write", "files:read", "agent:read"])).toEqual([
      "agent:read",
      "jobs:read",
      "files:write",
    ]);
    expect(normalizeScopes(["files:read", "all"])).toEqual(["all"]);
    expect(normalizeScopes([])).toEqual([]);
  });
});
