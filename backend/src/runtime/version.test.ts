import request from "supertest";
import { describe, expect, it } from "vitest";
import { headersFor, testApp } from "../testing";

describe("GET /api/runtime/version", () => {
  const app = (image: string) => testApp({ env: { RUNTIME_IMAGE: image } });

  it("returns the concrete version, its image and the configured default image", async () => {
    const res = await request(app("ghcr.io/openclaw/openclaw:latest"))
      .get("/api/runtime/version")
      .set(headersFor("internal"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      defaultImage: "ghcr.io/openclaw/openclaw:latest",
    });
    const pinned = await request(app("ghcr.io/openclaw/openclaw:2026.6.1"))
      .get("/api/runtime/version")
      .set(headersFor("internal"));
    expect(pinned.body.version).toBe("2026.6.1");
  });

  it("needs the internal key", async () => {
    const none = await request(app("x:1")).get("/api/runtime/version");
    expect(none.status).toBe(401);
    const wrong = await request(app("x:1")).get("/api/runtime/version").set("authorization", "Bearer no");
    expect(wrong.status).toBe(403);
  });
});
