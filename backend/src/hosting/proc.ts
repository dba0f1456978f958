/**
 * What the local driver learns about its agent processes from Linux's /proc: liveness that survives pid
 * reuse (the process start time is kept beside the pid), the members of a process group, and CPU and
 * resident memory of a group. Where /proc is missing every reader answers null and liveness falls back to
 * `kill(pid, 0)`.
 */
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on every mainstream Linux build). */
const CLOCK_TICKS_PER_SECOND = 100;

interface ProcStat {
  state: string;
  pgrp: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
  startTicks: string;
}

async function readStat(pid: number): Promise<ProcStat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: fields resume after the last ')'.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      state: fields[0],
      pgrp: Number(fields[2]),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
      startTicks: fields[19],
    };
  } catch {
    return null;
  }
}

/** The process's start time in clock ticks since boot (identifies it across pid reuse), or null. */
export async function processStartTicks(pid: number): Promise<string | null> {
  return (await readStat(pid))?.startTicks ?? null;
}

function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `pid` is a live (not zombie) process, and the same one that started at `startTicks` when given. */
export async function isProcessAlive(pid: number, startTicks?: string | null): Promise<boolean> {
  if (!signalReaches(pid)) return false;
  const stat = await readStat(pid);
  // No /proc entry: either /proc cannot be read here, or the process was reaped since the signal check
  // (a killed child goes from zombie to gone at any moment): ask again rather than guess "alive".
  if (!stat) return signalReaches(pid);
  if (stat.state === "Z" || stat.state === "X") return false;
  return !startTicks || stat.startTicks === startTicks;
}

/** Live (not zombie) members of process group `pgid`; null when /proc cannot be read. */
export async function groupMembers(pgid: number): Promise<number[] | null> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return null;
  }
  const members: number[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readStat(Number(name));
        if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X")
          members.push(Number(name));
      }),
  );
  return members;
}

/** Whether any live process remains in group `pgid`. */
export async function isGroupAlive(pgid: number): Promise<boolean> {
  const members = await groupMembers(pgid);
  return members ? members.length > 0 : signalReaches(-pgid);
}

/** Sends `signal` to every process of group `pgid`; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  // kill(-0) and kill(-1) would signal our own group or every process we may signal.
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface GroupUsage {
  cpuPercent: number;
  rssBytes: number;
}

/**
 * CPU percent (of one core; several busy cores exceed 100) and summed resident memory of group `pgid`,
 * from two samples `sampleMs` apart. Null when /proc is unavailable or the group is gone.
 */
export async function groupUsage(pgid: number, sampleMs: number): Promise<GroupUsage | null> {
  const sample = async () => {
    const members = await groupMembers(pgid);
    if (!members || members.length === 0) return null;
    const ticks = new Map<number, number>();
    await Promise.all(
      members.map(async (pid) => {
        const stat = await readStat(pid);
        if (stat) ticks.set(pid, stat.cpuTicks);
      }),
    );
    return { at: performance.now(), ticks };
  };
  const first = await sample();
  if (!first) return null;
  await sleep(sampleMs);
  const second = await sample();
  if (!second) return null;
  let deltaTicks = 0;
  for (const [pid, ticks] of second.ticks) {
    const before = first.ticks.get(pid);
    if (before !== undefined) deltaTicks += Math.max(0, ticks - before);
  }
  const seconds = (second.at - first.at) / 1000;
  const cpuPercent = seconds > 0 ? (deltaTicks / CLOCK_TICKS_PER_SECOND / seconds) * 100 : 0;
  const rss = await Promise.all([...second.ticks.keys()].map(residentBytes));
  return {
    cpuPercent: Math.round(cpuPercent * 100) / 100,
    rssBytes: rss.reduce<number>((sum, bytes) => sum + (bytes ?? 0), 0),
  };
}
