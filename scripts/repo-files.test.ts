import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envSchema as backendEnv } from "../backend/src/config";
import { envSchema as summarizerEnv } from "../summarizer/src/config";
import { envSchema as webEnv } from "../web/lib/infra/config";
import { envSchema as wrapperEnv } from "../wrapper/src/config";
import { envSchema as launcherEnv } from "./launcher/config";
import { LOCAL_SECRETS } from "./launcher/secrets";

const root = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** Variable names documented in .env.example (`NAME=` lines). */
const documented = new Set(
  read(".env.example")
    .split("\n")
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => Boolean(name)),
);

describe(".env.example", () => {
  it("documents every variable each service parses, each with a comment above it", () => {
    const read = [backendEnv, summarizerEnv, wrapperEnv, launcherEnv, webEnv].flatMap((schema) =>
      Object.keys(schema.shape),
    );
    // The operating system's own variables the backend passes on to local agents are not ours to document.
    const system = new Set(["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "NODE_EXTRA_CA_CERTS"]);
    const names = [
      ...read.filter((name) => !system.has(name)),
      ...LOCAL_SECRETS,
      "TEST_DATABASE_URL",
      "POSTGRES_PASSWORD",
    ];
    for (const name of names) expect(documented, name).toContain(name);
    const lines = readFileSync(join(root, ".env.example"), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/^[A-Z]/.test(line)) expect(lines[i - 1], `comment above ${line}`).toMatch(/^# /);
    });
  });
});

describe("docker-compose.yml", () => {
  const text = read("docker-compose.yml");
  const compose = parse(text, { merge: true }) as {
    services: Record<
      string,
      {
        build?: { context: string; dockerfile: string };
        command?: string[];
        depends_on?: Record<string, unknown>;
        healthcheck?: unknown;
        image?: string;
        working_dir?: string;
      }
    >;
  };

  it("parses and runs PostgreSQL 16 plus the services, each with a health check", () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      "backend",
      "migrate",
      "postgres",
      "summarizer",
      "web",
    ]);
    expect(compose.services.postgres.image).toBe("postgres:16");
    for (const name of ["postgres", "backend", "web", "summarizer"]) {
      expect(compose.services[name].healthcheck, name).toBeDefined();
    }
  });

  it("names only Dockerfiles, entry points and services that exist", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.build) {
        expect(existsSync(join(root, service.build.context, service.build.dockerfile)), name).toBe(true);
      }
      const cwd = service.working_dir ? join(root, service.working_dir.replace(/^\/app\/?/, "")) : root;
      for (const arg of service.command ?? []) {
        if (/\.(ts|js|mjs)$/.test(arg) || arg.includes("node_modules/")) {
          expect(existsSync(join(cwd, arg)), `${name}: ${arg}`).toBe(true);
        }
      }
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(Object.keys(compose.services), `${name} depends on ${dependency}`).toContain(dependency);
      }
    }
  });

  it("uses only variables documented in .env.example", () => {
    const used = [...text.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]);
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(documented, name).toContain(name);
  });
});
