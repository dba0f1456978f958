import { describe, expect, it } from "vitest";
import * as backend from "../../../backend/src/runtime/version";
import {
  DEFAULT_RUNTIME_IMAGE,
  DEFAULT_RUNTIME_REPOSITORY,
  isReleaseTag,
  MANAGED_BASELINE_VERSION,
  normalizeRuntimeVersion,
  parseImageReference,
} from "./version";

const INPUTS = [
  "latest",
  "main",
  "stable",
  "LATEST",
  " Stable ",
  "",
  "   ",
  null,
  undefined,
  "2026.4.11",
  "2026.5.2",
  "v1.2.3",
  "2026.3.1-beta.2",
  "latest-1",
  "ghcr.io/openclaw/openclaw:latest",
  "ghcr.io/openclaw/openclaw:main",
  "ghcr.io/openclaw/openclaw:stable",
  "ghcr.io/openclaw/openclaw:",
  "ghcr.io/openclaw/openclaw",
  "ghcr.io/openclaw/openclaw:2026.5.2",
  "localhost:5000/openclaw/openclaw",
  "localhost:5000/openclaw/openclaw:2026.6.1",
  "ghcr.io/openclaw/openclaw:2026.4.11@sha256:abc123",
  "ghcr.io/openclaw/openclaw@sha256:abc123",
  "example/runtime:nightly",
];

describe("normalizeRuntimeVersion", () => {
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

  it("behaves exactly like the backend's normalizer", () => {
    expect(MANAGED_BASELINE_VERSION).toBe(backend.MANAGED_BASELINE_VERSION);
    expect(DEFAULT_RUNTIME_REPOSITORY).toBe(backend.DEFAULT_RUNTIME_REPOSITORY);
    for (const input of INPUTS) {
      expect(normalizeRuntimeVersion(input), String(input)).toEqual(backend.normalizeRuntimeVersion(input));
      if (typeof input === "string") {
        expect(parseImageReference(input), input).toEqual(backend.parseImageReference(input));
        expect(isReleaseTag(input), input).toBe(backend.isReleaseTag(input));
      }
    }
  });
});
