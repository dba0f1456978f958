/**
 * Dockerfile.agent cannot be built here (no Docker engine), so what must not drift is checked by reading it:
 * the base image is OpenClaw at the managed baseline (the backend's RUNTIME_VERSION and AGENT_IMAGE defaults
 * say the same release), the wrapper runs as a non-root user on the port and volume the drivers use, with the
 * runtime commands the local driver gives its wrappers, the permission plugin beside the wrapper and nothing
 * of the backend, and every file it copies or runs exists.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_RUNTIME_REPOSITORY,
  MANAGED_BASELINE_VERSION,
  parseImageReference,
} from "@svc/common/runtime-version";
import { describe, expect, it } from "vitest";
import { envSchema as backendEnv } from "../backend/src/config";
import { OPENCLAW_GATEWAY_ARGS } from "../backend/src/hosting/local-runtime";
import { DEFAULT_PLUGIN_DIR } from "../wrapper/src/config";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Where the image keeps the repository's files (its first WORKDIR after FROM). */
const IMAGE_ROOT = "/opt/agent-platform";

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile instructions: comments dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.search(/\s/);
      return { op: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

/** `KEY=value KEY2="quoted value"` pairs of an ENV instruction. */
function envPairs(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("((?:[^"\\]|\\.)*)"|\S*)/g))
    pairs[match[1]] = match[3] !== undefined ? match[3].replace(/\\(.)/g, "$1") : match[2];
  return pairs;
}

const dockerfile = instructions(readFileSync(join(root, "Dockerfile.agent"), "utf8"));
const all = (op: string) => dockerfile.filter((i) => i.op === op);
const fromAt = dockerfile.findIndex((i) => i.op === "FROM");
const env = Object.assign({}, ...all("ENV").map((i) => envPairs(i.args))) as Record<string, string>;

describe("Dockerfile.agent", () => {
  it("is OpenClaw's image at RUNTIME_VERSION, by default the managed baseline the backend defaults to", () => {
    const arg = dockerfile
      .slice(0, fromAt)
      .find((i) => i.op === "ARG" && i.args.startsWith("RUNTIME_VERSION"));
    expect(arg?.args).toBe(`RUNTIME_VERSION=${MANAGED_BASELINE_VERSION}`);
    expect(all("FROM").map((i) => i.args)).toEqual([`${DEFAULT_RUNTIME_REPOSITORY}:\${RUNTIME_VERSION}`]);
    const defaults = backendEnv.parse({ DATABASE_URL: "postgres://u@localhost/db" });
    expect(defaults.RUNTIME_VERSION).toBe(MANAGED_BASELINE_VERSION);
    expect(parseImageReference(defaults.AGENT_IMAGE).tag).toBe(MANAGED_BASELINE_VERSION);
    expect(parseImageReference(defaults.RUNTIME_IMAGE)).toMatchObject({
      repository: DEFAULT_RUNTIME_REPOSITORY,
      tag: MANAGED_BASELINE_VERSION,
    });
  });

  it("runs as a non-root user, set after the last command that needs root", () => {
    const users = dockerfile.map((i, at) => ({ ...i, at })).filter((i) => i.op === "USER");
    const last = users.at(-1);
    expect(last?.args).toMatch(/^[a-z_][a-z0-9_-]*$/);
    expect(["root", "0"]).not.toContain(last?.args.split(":")[0]);
    const lastRun = dockerfile.map((i) => i.op).lastIndexOf("RUN");
    expect(last?.at).toBeGreaterThan(lastRun);
  });

  it("serves the wrapper on the drivers' port with the runtime commands of OpenClaw, its state on their volume", () => {
    expect(env).toMatchObject({
      HOST: "0.0.0.0",
      WRAPPER_PORT: "8080",
      RUNTIME_KIND: "openclaw",
      RUNTIME_COMMAND: `openclaw ${OPENCLAW_GATEWAY_ARGS}`,
      RUNTIME_CLI_COMMAND: "openclaw",
      OPENCLAW_NO_RESPAWN: "1",
    });
    // The docker driver publishes 8080 and mounts the agent's volume at /data (railway: the same).
    expect(all("EXPOSE").map((i) => i.args)).toEqual(["8080"]);
    expect(env.OPENCLAW_STATE_DIR).toMatch(/^\/data\//);
    const dockerDriver = readFileSync(join(root, "backend/src/hosting/docker.ts"), "utf8");
    expect(dockerDriver).toContain('const WRAPPER_PORT = "8080/tcp";');
    expect(dockerDriver).toContain('Target: "/data"');
  });

  it("copies only files that exist, and its entry point is the wrapper's server under tsx", () => {
    for (const copy of all("COPY")) {
      const parts = copy.args.split(/\s+/).filter((part) => !part.startsWith("--"));
      for (const source of parts.slice(0, -1)) expect(existsSync(join(root, source)), source).toBe(true);
    }
    const workdirs = all("WORKDIR").map((i) => i.args);
    expect(workdirs[0]).toBe(IMAGE_ROOT);
    const entry = JSON.parse(all("ENTRYPOINT").at(-1)?.args ?? "[]") as string[];
    expect(entry).toEqual(["node", "--import", "tsx", "src/server.ts"]);
    const workdir = workdirs.at(-1) as string;
    expect(existsSync(join(root, posix.relative(IMAGE_ROOT, workdir), entry[3]))).toBe(true);
    // tsx is what runs it: a dependency of the root manifest the image installs from.
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(manifest.dependencies.tsx).toEqual(expect.any(String));
    // The build context leaves out the host's node_modules and state.
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8").split("\n");
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", ".data"]));
  });

  it("carries the permission plugin where the wrapper looks for it, and nothing of the backend", () => {
    const sources = all("COPY").flatMap((copy) =>
      copy.args
        .split(/\s+/)
        .filter((part) => !part.startsWith("--"))
        .slice(0, -1),
    );
    expect(sources).toContain("wrapper/");
    // The wrapper's default plugin folder is inside the copied wrapper/, so no setting is needed.
    expect(posix.relative(join(root, "wrapper"), DEFAULT_PLUGIN_DIR)).toBe("openclaw-plugin");
    expect(existsSync(join(DEFAULT_PLUGIN_DIR, "openclaw.plugin.json"))).toBe(true);
    expect(env.PLATFORM_PLUGIN_DIR).toBeUndefined();
    expect(sources.filter((source) => source.startsWith("backend"))).toEqual([]);
  });

  it("the parser reads continuations, quoted ENV values and comments", () => {
    const parsed = instructions('# note\nFROM a:b\nENV A=1 \\\n    B="x y" \\\n    C=\nRUN echo \\\n  hi');
    expect(parsed).toEqual([
      { op: "FROM", args: "a:b" },
      { op: "ENV", args: 'A=1      B="x y"      C=' },
      { op: "RUN", args: "echo    hi" },
    ]);
    expect(envPairs(parsed[1].args)).toEqual({ A: "1", B: "x y", C: "" });
  });
});
