/**
 * The local driver's per-agent state: `<agentsDir>/<agentId>/service.json` (mode 0600, owned by the
 * platform's user: it holds the agent's environment and so its gateway token; the directory is 0700, or
 * 0710 with the agent's own group when agents run as their own users). Written to a temporary file and
 * renamed, so a crash mid-write never leaves a torn record.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Clock, systemClock } from "@svc/common";
import { HostingError } from "./types";

export interface LocalServiceRecord {
  agentId: string;
  name: string;
  /** Recorded for reporting; what runs is the installed runtime (RUNTIME_VERSION) or LOCAL_RUNTIME_COMMAND. */
  image: string;
  env: Record<string, string>;
  wrapperPort: number;
  runtimePort: number;
  /** What the operator asked for last; `running` agents come back when the platform restarts. */
  desired: "running" | "stopped";
  /** The wrapper process (leader of its own process group), with its start time against pid reuse. */
  pid: number | null;
  pidStart: string | null;
  /** The OS user the agent runs as when the platform runs as root (see local-users.ts); else absent. */
  osUser?: string;
  createdAt: string;
  updatedAt: string;
}

const AGENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

export class LocalServiceStore {
  constructor(
    readonly root: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The agent's directory; refuses ids that could leave the agents directory. */
  dir(agentId: string): string {
    if (!AGENT_ID.test(agentId)) throw new HostingError("not_found", `no local service ${agentId}`);
    return join(this.root, agentId);
  }

  stateDir(agentId: string): string {
    return join(this.dir(agentId), "state");
  }

  /** HOME of an agent that runs as its own user (the agent's directory itself is the platform's). */
  homeDir(agentId: string): string {
    return join(this.dir(agentId), "home");
  }

  logPath(agentId: string): string {
    return join(this.dir(agentId), "wrapper.log");
  }

  async read(agentId: string): Promise<LocalServiceRecord | null> {
    if (!AGENT_ID.test(agentId)) return null;
    try {
      return JSON.parse(
        await readFile(join(this.dir(agentId), "service.json"), "utf8"),
      ) as LocalServiceRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new HostingError("platform", `unreadable service.json of ${agentId}: ${(err as Error).message}`);
    }
  }

  async require(agentId: string): Promise<LocalServiceRecord> {
    const record = await this.read(agentId);
    if (!record) throw new HostingError("not_found", `no local service ${agentId}`);
    return record;
  }

  async write(record: LocalServiceRecord): Promise<void> {
    const dir = this.dir(record.agentId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, "service.json");
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(
      temporary,
      `${JSON.stringify({ ...record, updatedAt: this.clock.now().toISOString() }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    await rename(temporary, path);
  }

  async all(): Promise<LocalServiceRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const records = await Promise.all(names.map((name) => this.read(name).catch(() => null)));
    return records.filter((record): record is LocalServiceRecord => record !== null);
  }

  async delete(agentId: string): Promise<void> {
    await rm(this.dir(agentId), { recursive: true, force: true });
  }
}
