/** Which answers declare their Content-Length to web/server.ts (the running web's: download.running.test.ts). */
import { describe, expect, it } from "vitest";
import { DECLARED_LENGTH_HEADER, declareContentLength } from "./content-length";

describe("declareContentLength", () => {
  it("copies a handler's Content-Length under the private header", () => {
    const res = declareContentLength(new Response("12345", { headers: { "content-length": "5" } }));
    expect(res.headers.get(DECLARED_LENGTH_HEADER)).toBe("5");
    expect(declareContentLength(Response.json({ a: 1 })).headers.has(DECLARED_LENGTH_HEADER)).toBe(false);
  });

  it("leaves an encoded answer alone (its length may be of bytes fetch decoded)", () => {
    const encoded = new Response("x", { headers: { "content-length": "40", "content-encoding": "gzip" } });
    expect(declareContentLength(encoded).headers.has(DECLARED_LENGTH_HEADER)).toBe(false);
  });
});
