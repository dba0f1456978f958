import { describe, expect, it } from "vitest";
import { connectionTokens, endToEndHeaders, HOP_BY_HOP_HEADERS, isEndToEnd } from "./hop-by-hop";

describe("hop-by-hop header filtering", () => {
  it("drops the RFC 9110 hop-by-hop headers, Expect, and those Connection names", () => {
    expect(
      endToEndHeaders({
        connection: "keep-alive, X-Trace , ,x-other",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        te: "trailers",
        trailer: "x-sum",
        upgrade: "websocket",
        expect: "100-continue",
        "proxy-authorization": "Basic x",
        "proxy-authenticate": "Basic",
        "x-trace": "1",
        "x-other": "2",
        "content-type": "application/json",
        "set-cookie": ["a=1", "b=2"],
        host: "example.test",
      }),
    ).toEqual({ "content-type": "application/json", "set-cookie": ["a=1", "b=2"], host: "example.test" });
    expect(HOP_BY_HOP_HEADERS.has("host")).toBe(false);
  });

  it("reads Connection tokens from one or several headers", () => {
    expect(connectionTokens(undefined)).toBeNull();
    expect(connectionTokens("")).toBeNull();
    expect([...(connectionTokens(["Close", "X-A, x-b"]) ?? [])]).toEqual(["close", "x-a", "x-b"]);
    expect(isEndToEnd("x-a", connectionTokens("x-a"))).toBe(false);
    expect(isEndToEnd("x-a", null)).toBe(true);
    expect(isEndToEnd("upgrade", null)).toBe(false);
  });
});
