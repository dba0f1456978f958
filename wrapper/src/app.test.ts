import { describe, expect, it } from "vitest";
import { isOwnPath } from "./app";

describe("isOwnPath: which requests the wrapper's Express app sees", () => {
  it("takes every path under the wrapper's own prefixes, in any case, with or without a query", () => {
    for (const url of [
      "/api/status",
      "/API/STATUS/",
      "/api/logs?lines=5",
      "/api/logs/stream",
      "/api/events",
      "/api/gateway/restart",
      "/api/config",
      "/api/pairing/pending",
      "/api/identity?challenge=00",
      "/login?next=/",
      "/logout",
    ])
      expect(isOwnPath(url), url).toBe(true);
  });

  it("leaves the runtime's paths to the proxy", () => {
    for (const url of ["/", "/v1/chat/completions", "/healthz", "/ws?x=/api/status", "/apistatus"])
      expect(isOwnPath(url), url).toBe(false);
  });

  it("lets Express decide on escaped paths", () => {
    expect(isOwnPath("/api/st%61tus")).toBe(true);
    expect(isOwnPath("/%2e%2e/api/status")).toBe(true);
  });
});
