import { cpus, freemem, loadavg, totalmem } from "node:os";
import { systemClock } from "@svc/common";

export type HealthLevel = "healthy" | "degraded" | "unhealthy";

/** Load per core and share of memory in use at which the web reports itself degraded or unhealthy. */
export const HEALTH_THRESHOLDS = {
  degraded: { cpu: 0.8, memory: 0.85 },
  unhealthy: { cpu: 0.95, memory: 0.95 },
} as const;

export interface HostSample {
  load1: number;
  cores: number;
  totalMemoryBytes: number;
  freeMemoryBytes: number;
  rssBytes: number;
}

export interface WebHealth {
  status: "ok";
  service: "web";
  health: HealthLevel;
  cpu: { load1: number; cores: number; loadPerCore: number };
  memory: { usedRatio: number; rssBytes: number };
  timestamp: string;
}

export function sampleHost(): HostSample {
  return {
    load1: loadavg()[0] ?? 0,
    cores: Math.max(1, cpus().length),
    totalMemoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    rssBytes: process.memoryUsage.rss(),
  };
}

/** The web health report: always `status: ok` (the process answers); `health` from CPU and memory. */
export function assessWebHealth(sample: HostSample, now: Date = systemClock.now()): WebHealth {
  const loadPerCore = round(sample.load1 / sample.cores);
  const usedRatio = round(1 - sample.freeMemoryBytes / sample.totalMemoryBytes);
  const over = (level: keyof typeof HEALTH_THRESHOLDS) =>
    loadPerCore >= HEALTH_THRESHOLDS[level].cpu || usedRatio >= HEALTH_THRESHOLDS[level].memory;
  const health: HealthLevel = over("unhealthy") ? "unhealthy" : over("degraded") ? "degraded" : "healthy";
  return {
    status: "ok",
    service: "web",
    health,
    cpu: { load1: round(sample.load1), cores: sample.cores, loadPerCore },
    memory: { usedRatio, rssBytes: sample.rssBytes },
    timestamp: now.toISOString(),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
