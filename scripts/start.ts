/**
 * `npm start`: the whole platform on one machine with zero configuration.
 *
 * Variables come from the environment and from `.env` at the repository root (the environment wins).
 * Without DATABASE_URL it runs embedded PostgreSQL with its data in `.data/postgres` (kept between runs);
 * it closes the data directory's private parts to other users (launcher/data-dir.ts), applies migrations,
 * writes missing local secrets to `.data/secrets.json`, builds the web app when its
 * sources changed, starts backend, web and summarizer, and waits for their health endpoints. Ctrl-C or
 * SIGTERM stops everything, the database included. Any start-up failure is one line and exit code 1, with
 * nothing left running.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isPortTaken, parseEnv } from "@svc/common";
import type { EmbeddedPostgres } from "@svc/db/embedded";
import { z } from "zod";
import { runtimeInstallEnv, runtimesDirOf } from "../backend/src/runtime-install/config";
import { findRuntime, runtimeDirFor } from "../backend/src/runtime-install/index";
import { buildWebIfNeeded } from "./launcher/build";
import {
  type LauncherConfig,
  loadDotEnv,
  loadLauncherConfig,
  publicHostOf,
  publicUrlOf,
  type ServiceName,
  sharedUserNotice,
} from "./launcher/config";
import { secureDataDir } from "./launcher/data-dir";
import { openDatabase } from "./launcher/database";
import { type ManagedProcess, spawnService, waitForHealthy } from "./launcher/processes";
import { ensureLocalSecrets } from "./launcher/secrets";

const root = fileURLToPath(new URL("..", import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const say = (line: string) => log(`[start] ${line}`);

const running: ManagedProcess[] = [];
let cluster: EmbeddedPostgres | undefined;
let shuttingDown = false;

async function stopEverything(): Promise<void> {
  await Promise.all(running.map((proc) => proc.stop()));
  await cluster?.stop();
}

let stopped: Promise<void> | undefined;

/** Stops everything once; later calls (a second Ctrl-C, a service dying meanwhile) wait for the same stop. */
async function shutdown(code: number, reason?: string): Promise<never> {
  if (!stopped) {
    shuttingDown = true;
    if (reason) process.stderr.write(`npm start: ${reason}\n`);
    else say("stopping");
    stopped = stopEverything().catch(() => undefined);
    await stopped;
    if (!reason) say("stopped");
  }
  await stopped;
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

function servicePlan(config: LauncherConfig, name: ServiceName) {
  const tsx = ["--import", "tsx"];
  switch (name) {
    case "backend":
      return {
        port: config.BACKEND_PORT,
        cwd: join(root, "backend"),
        args: [...tsx, "src/server.ts"],
        health: "/health",
      };
    case "summarizer":
      return {
        port: config.SUMMARIZER_PORT,
        cwd: join(root, "summarizer"),
        args: [...tsx, "src/server.ts"],
        health: "/health",
      };
    case "web":
      return {
        port: config.WEB_PORT,
        cwd: join(root, "web"),
        args: [...tsx, "server.ts"],
        health: "/api/health",
      };
  }
}

/**
 * What local agents run, said once: the managed OpenClaw (installed by the backend on the first deploy when
 * it is not there yet), or the operator's LOCAL_RUNTIME_COMMAND as given.
 */
async function sayLocalRuntime(config: LauncherConfig): Promise<void> {
  if (config.HOSTING_PROVIDER !== "local" || !config.START_SERVICES.includes("backend")) return;
  const command = process.env.LOCAL_RUNTIME_COMMAND?.trim();
  if (command) {
    say(
      `local agents run LOCAL_RUNTIME_COMMAND as given (${command}); its permission plugin cannot be verified`,
    );
    return;
  }
  const runtime = parseEnv(z.object(runtimeInstallEnv), { ...process.env, DATA_DIR: config.dataDir });
  const runtimesDir = runtimesDirOf(runtime);
  const installed = await findRuntime(runtimesDir, runtime.RUNTIME_VERSION);
  if (installed) say(`local agents run OpenClaw ${installed.version} (${installed.dir})`);
  else
    say(
      `local agents run OpenClaw ${runtime.RUNTIME_VERSION}: the first deploy installs it from the npm registry into ${runtimeDirFor(runtimesDir, runtime.RUNTIME_VERSION)} (about 1.2 GB, a minute or two; or now: npm run runtime:install)`,
    );
}

async function main(): Promise<void> {
  const fromDotEnv = loadDotEnv(root);
  if (fromDotEnv.length > 0) say(`.env: ${fromDotEnv.join(", ")}`);
  const config = loadLauncherConfig(root);
  const services = config.START_SERVICES;
  const notice = services.includes("backend") ? sharedUserNotice(config, process.getuid?.()) : null;
  if (notice) say(notice);
  for (const name of services) {
    const { port } = servicePlan(config, name);
    if (await isPortTaken(port, config.HOST)) {
      throw new Error(
        `port ${port} for ${name} is already in use (set ${name.toUpperCase()}_PORT to another port)`,
      );
    }
  }

  await secureDataDir(config.dataDir);
  const secrets = await ensureLocalSecrets(config.dataDir);
  const database = await openDatabase(config, secrets.EMBEDDED_PG_PASSWORD, say);
  cluster = database.cluster;
  if (shuttingDown) return;

  if (services.includes("web")) await buildWebIfNeeded(root, say);
  if (shuttingDown) return;

  const url = (port: number) => `http://${publicHostOf(config.HOST)}:${port}`;
  const publicUrl = publicUrlOf(config);
  const { EMBEDDED_PG_PASSWORD: _dbPassword, ...serviceSecrets } = secrets;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...serviceSecrets,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: database.url,
    HOST: config.HOST,
    DATA_DIR: config.dataDir,
    WEB_PORT: String(config.WEB_PORT),
    BACKEND_PORT: String(config.BACKEND_PORT),
    SUMMARIZER_PORT: String(config.SUMMARIZER_PORT),
    LOG_LEVEL: config.LOG_LEVEL,
    BACKEND_URL: config.BACKEND_URL ?? `http://127.0.0.1:${config.BACKEND_PORT}`,
    SUMMARIZER_URL: config.SUMMARIZER_URL ?? `http://127.0.0.1:${config.SUMMARIZER_PORT}`,
    PUBLIC_URL: publicUrl,
    BACKEND_PUBLIC_URL: process.env.BACKEND_PUBLIC_URL ?? `http://127.0.0.1:${config.BACKEND_PORT}`,
    LOCAL_AGENTS_DIR: process.env.LOCAL_AGENTS_DIR ?? join(config.dataDir, "agents"),
  };
  await sayLocalRuntime(config);

  for (const name of services) {
    const plan = servicePlan(config, name);
    const proc = spawnService(name, process.execPath, plan.args, { cwd: plan.cwd, env, write: log });
    running.push(proc);
    proc.exited.then((code) => {
      if (!shuttingDown) void shutdown(1, `${name} exited unexpectedly (code ${code}); stopped everything`);
    });
  }
  await Promise.all(
    services.map((name) => {
      const plan = servicePlan(config, name);
      const proc = running.find((p) => p.name === name) as ManagedProcess;
      return waitForHealthy(`http://127.0.0.1:${plan.port}${plan.health}`, proc, 90_000);
    }),
  );

  log("");
  log("Agent platform is running:");
  for (const name of services) {
    const plan = servicePlan(config, name);
    log(`  ${name.padEnd(11)} ${url(plan.port)}   (health: ${plan.health})`);
  }
  log(`  database    ${database.description}`);
  if (services.includes("web")) {
    log("");
    log(`Open ${publicUrl} in your browser (its Overview lists what is not set up yet).`);
    // Only an ADMIN_EMAILS account sees the setup checklist: a first start says how to become one.
    if (!process.env.ADMIN_EMAILS?.trim())
      log(
        "To see the setup checklist there, put your email in ADMIN_EMAILS in .env, restart, then sign up with it and open the link mailed to it (without SMTP_URL: the newest file in " +
          `${join(config.dataDir, "mail")}).`,
      );
  }
  log("Press Ctrl-C to stop.");
}

main().catch((err: unknown) => shutdown(1, err instanceof Error ? err.message : String(err)));
