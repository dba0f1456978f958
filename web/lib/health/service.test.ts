import { describe, expect, it } from "vitest";
import { assessWebHealth, type HostSample } from "./service";

const GiB = 1024 ** 3;
const sample = (load1: number, usedRatio: number): HostSample => ({
  load1,
  cores: 2,
  totalMemoryBytes: 24 * GiB,
  freeMemoryBytes: 24 * GiB * (1 - usedRatio),
  rssBytes: 100_000_000,
});

describe("web health", () => {
  it("is healthy under the thresholds", () => {
    const at = new Date("2026-11-21T12:00:00.000Z");
    expect(assessWebHealth(sample(0.5, 0.4), at)).toEqual({
      status: "ok",
      service: "web",
      health: "healthy",
      cpu: { load1: 0.5, cores: 2, loadPerCore: 0.25 },
      memory: { usedRatio: 0.4, rssBytes: 100_000_000 },
      timestamp: "2026-11-21T12:00:00.000Z",
    });
  });

  it("is degraded from 80% load per core or 85% memory", () => {
    expect(assessWebHealth(sample(1.6, 0.1)).health).toBe("degraded");
    expect(assessWebHealth(sample(0.1, 0.86)).health).toBe("degraded");
  });

  it("is unhealthy from 95% load per core or 95% memory, and status stays ok", () => {
    const report = assessWebHealth(sample(1.9, 0.2));
    expect(report.health).toBe("unhealthy");
    expect(report.status).toBe("ok");
    expect(assessWebHealth(sample(0.1, 0.97)).health).toBe("unhealthy");
  });
});
