/** What `buildOpenApiDocument` guarantees every service's document, whatever its route table. */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ApiOperation, buildOpenApiDocument, webErrorBody } from "./index";

const build = (operations: ApiOperation[]) =>
  buildOpenApiDocument({ title: "t", version: "1", description: "d", errorBody: webErrorBody, operations });
const ok = { status: 200, description: "ok", schema: z.object({ ok: z.boolean() }) };

describe("buildOpenApiDocument", () => {
  it("refuses two operations with the same operationId, naming both; an operation may name its own", () => {
    const twins: ApiOperation[] = [
      { method: "get", path: "/api/runtime-version", summary: "a", auth: ["none"], success: ok },
      { method: "get", path: "/api/runtime/version", summary: "b", auth: ["none"], success: ok },
    ];
    expect(() => build(twins)).toThrow(
      'OpenAPI: GET /api/runtime-version and GET /api/runtime/version have the same operationId "getApiRuntimeVersion"',
    );
    const document = build([twins[0], { ...twins[1], operationId: "getApiRuntimeSlashVersion" }]);
    expect(document.paths?.["/api/runtime/version"]?.get?.operationId).toBe("getApiRuntimeSlashVersion");
    expect(document.paths?.["/api/runtime-version"]?.get?.operationId).toBe("getApiRuntimeVersion");
  });

  it("names its server relative to where it is fetched from, and only the security schemes it uses", () => {
    const document = build([
      { method: "get", path: "/a", summary: "a", auth: ["session"], success: ok },
      { method: "get", path: "/b", summary: "b", auth: ["none", "metricsToken"], success: ok },
      { method: "get", path: "/c", summary: "c", auth: ["none"], success: ok },
    ]);
    expect(document.servers).toEqual([
      { url: "/", description: "the server this document was fetched from" },
    ]);
    expect(Object.keys(document.components?.securitySchemes ?? {}).sort()).toEqual([
      "metricsToken",
      "session",
    ]);
    expect(document.paths?.["/a"]?.get?.security).toEqual([{ session: [] }]);
    // Public, and also taking a token: `{}` (no credentials) is one of the alternatives.
    expect(document.paths?.["/b"]?.get?.security).toEqual([{}, { metricsToken: [] }]);
    expect(document.paths?.["/c"]?.get?.security).toEqual([]);
  });
});
