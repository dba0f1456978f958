import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../app";
import { loadBackendConfig } from "../config";
import {
  isReleaseTag,
  MANAGED_BASELINE_VERSION,
  normalizeRuntimeVersion,
  parseImageReference,
  pinImageVersion,
} from "./version";

describe("normalizeRuntimeVersion", () => {
  it("keeps a release tag", () => {
    expect(normalizeRuntimeVersion("ghcr.io/openclaw/openclaw:2026.4.11")).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
    });
    expect(normalizeRuntimeVersion("registry:5000/team/openclaw:v2026.5.0-beta.1")).toEqual({
      version: "v2026.5.0-beta.1",
      image: "registry:5000/team/openclaw:v2026.5.0-beta.1",
    });
  });

  it("replaces floating tags and a missing tag by the managed baseline", () => {
    expect(MANAGED_BASELINE_VERSION).toBe("2026.4.11");
    for (const image of [
      "ghcr.io/openclaw/openclaw:latest",
      "ghcr.io/openclaw/openclaw:main",
      "ghcr.io/openclaw/openclaw:stable",
      "ghcr.io/openclaw/openclaw",
      "ghcr.io/openclaw/openclaw:",
    ]) {
      expect([image, normalizeRuntimeVersion(image)]).toEqual([
        image,
        { version: "2026.4.11", image: "ghcr.io/openclaw/openclaw:2026.4.11" },
      ]);
    }
    // A registry port is not a tag.
    expect(normalizeRuntimeVersion("localhost:5000/openclaw")).toEqual({
      version: "2026.4.11",
      image: "localhost:5000/openclaw:2026.4.11",
    });
  });

  it("accepts bare tags", () => {
    expect(normalizeRuntimeVersion("latest")).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
    });
    expect(normalizeRuntimeVersion("2026.5.2").version).toBe("2026.5.2");
    expect(normalizeRuntimeVersion("").version).toBe("2026.4.11");
    expect(normalizeRuntimeVersion(null).version).toBe("2026.4.11");
  });

  it("an image pinned by digest keeps its reference", () => {
    const image = `ghcr.io/openclaw/openclaw@sha256:${"a".repeat(64)}`;
    expect(normalizeRuntimeVersion(image)).toEqual({ version: "2026.4.11", image });
    expect(parseImageReference(`repo/x:1.2@sha256:abc`)).toEqual({
      repository: "repo/x",
      tag: "1.2",
      digest: "sha256:abc",
    });
  });

  it("pinImageVersion keeps the repository", () => {
    expect(pinImageVersion("registry.example.com/team/openclaw:latest", "2026.4.11")).toBe(
      "registry.example.com/team/openclaw:2026.4.11",
    );
    expect(pinImageVersion("latest", "2026.4.11")).toBe("ghcr.io/openclaw/openclaw:2026.4.11");
    expect(isReleaseTag("latest")).toBe(false);
    expect(isReleaseTag("2026.4.11")).toBe(true);
  });
});

describe("GET /api/runtime/version", () => {
  const database = connectDatabase(process.env.DATABASE_URL ?? "");
  afterAll(() => database.close());
  const app = (image: string) =>
    createApp({
      config: loadBackendConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        INTERNAL_API_KEY: "version-key",
        RUNTIME_IMAGE: image,
      }),
      database,
      logger: createLogger("version-test", "silent"),
    });

  it("returns the concrete version, its image and the configured default image", async () => {
    const res = await request(app("ghcr.io/openclaw/openclaw:latest"))
      .get("/api/runtime/version")
      .set("authorization", "Bearer version-key");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      defaultImage: "ghcr.io/openclaw/openclaw:latest",
    });
    const pinned = await request(app("ghcr.io/openclaw/openclaw:2026.6.1"))
      .get("/api/runtime/version")
      .set("authorization", "Bearer version-key");
    expect(pinned.body.version).toBe("2026.6.1");
  });

  it("needs the internal key", async () => {
    const none = await request(app("x:1")).get("/api/runtime/version");
    expect(none.status).toBe(401);
    const wrong = await request(app("x:1")).get("/api/runtime/version").set("authorization", "Bearer no");
    expect(wrong.status).toBe(403);
  });
});
