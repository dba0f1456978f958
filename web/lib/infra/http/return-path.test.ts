/** Where sign-in returns to (./return-path.ts): a page of this site, or nothing. */
import { describe, expect, it } from "vitest";
import { loginPathFor, requestedPagePath, safeReturnPath } from "./return-path";

describe("safeReturnPath", () => {
  it.each([
    ["/dashboard/files", "/dashboard/files"],
    ["/dashboard/jobs?status=failed#top", "/dashboard/jobs?status=failed#top"],
    ["/dashboard/../docs", "/docs"],
  ])("keeps the page %s", (value, path) => {
    expect(safeReturnPath(value)).toBe(path);
  });

  it.each([
    "//evil.example/x",
    "/\\evil.example",
    "/\\/evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "dashboard",
    "/dash\nboard",
    "/api/keys",
    "/login?next=/dashboard",
    `/${"a".repeat(3000)}`,
    undefined,
    ["/dashboard"],
  ])("drops %j", (value) => {
    expect(safeReturnPath(value)).toBeNull();
  });
});

describe("the sign-in page's address", () => {
  it("carries the page asked for, without Next's own `_rsc` parameter; the overview needs none", () => {
    expect(loginPathFor(requestedPagePath("/dashboard/jobs?status=failed&_rsc=1x2y"))).toBe(
      `/login?next=${encodeURIComponent("/dashboard/jobs?status=failed")}`,
    );
    expect(loginPathFor(requestedPagePath("/dashboard"))).toBe("/login");
    expect(loginPathFor(null)).toBe("/login");
  });
});
