import { describe, expect, it } from "vitest";
import {
  DEFAULT_RUNTIME_IMAGE,
  DEFAULT_RUNTIME_REPOSITORY,
  isReleaseTag,
  MANAGED_BASELINE_VERSION,
  normalizeRuntimeVersion,
  parseImageReference,
  pinImageVersion,
} from "./runtime-version";

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

describe("normalizeRuntimeVersion (from the web's tests)", () => {
  it("replaces a floating tag (or none) by the managed baseline 2026.4.11, in tags and in images", () => {
    for (const floating of ["latest", "main", "stable", "LATEST", " Stable ", "", "   ", null, undefined]) {
      expect(normalizeRuntimeVersion(floating)).toEqual({
        version: "2026.4.11",
        image: "ghcr.io/openclaw/openclaw:2026.4.11",
      });
    }
    for (const image of [
      "ghcr.io/openclaw/openclaw:latest",
      "ghcr.io/openclaw/openclaw:main",
      "ghcr.io/openclaw/openclaw:stable",
      "ghcr.io/openclaw/openclaw:",
      "ghcr.io/openclaw/openclaw",
    ]) {
      expect(normalizeRuntimeVersion(image)).toEqual({
        version: "2026.4.11",
        image: "ghcr.io/openclaw/openclaw:2026.4.11",
      });
    }
    expect(normalizeRuntimeVersion("localhost:5000/openclaw/openclaw")).toEqual({
      version: "2026.4.11",
      image: "localhost:5000/openclaw/openclaw:2026.4.11",
    });
    expect(MANAGED_BASELINE_VERSION).toBe("2026.4.11");
    expect(DEFAULT_RUNTIME_IMAGE).toBe(`${DEFAULT_RUNTIME_REPOSITORY}:2026.4.11`);
  });

  it("keeps a concrete release; an image pinned by digest stays as it is", () => {
    expect(normalizeRuntimeVersion("2026.5.2")).toEqual({
      version: "2026.5.2",
      image: "ghcr.io/openclaw/openclaw:2026.5.2",
    });
    expect(normalizeRuntimeVersion("ghcr.io/openclaw/openclaw:2026.5.2").version).toBe("2026.5.2");
    expect(normalizeRuntimeVersion("ghcr.io/openclaw/openclaw:2026.4.11@sha256:abc123")).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11@sha256:abc123",
    });
    expect(isReleaseTag("v1.2.3")).toBe(true);
    expect(isReleaseTag("latest")).toBe(false);
    expect(parseImageReference("localhost:5000/a/b:1.0@sha256:x")).toEqual({
      repository: "localhost:5000/a/b",
      tag: "1.0",
      digest: "sha256:x",
    });
  });
});
