import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, isPortTaken } from "@svc/common";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { getJson, type LauncherRun, runLauncher, stopLauncher } from "./testing/launcher";

const root = fileURLToPath(new URL("..", import.meta.url));
let dataDir = "";
const runs: LauncherRun[] = [];

afterAll(async () => {
  for (const run of runs) if (run.child.exitCode === null) await stopLauncher(run);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Every process whose command line mentions `text` (the data dir of this test's cluster, say). */
function processesMentioning(text: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes(text) && !line.includes("ps -eo"));
}

describe("npm start, end to end", () => {
  it("serves the three health endpoints, stops cleanly on SIGTERM and keeps data across restarts", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-launch-"));
    await chmod(dataDir, 0o755);
    const ports = {
      WEB_PORT: String(await freePort()),
      BACKEND_PORT: String(await freePort()),
      SUMMARIZER_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
    };
    const env = { ...ports, DATA_DIR: dataDir, ADMIN_EMAILS: "" };

    const first = runLauncher(root, env);
    runs.push(first);
    await first.waitFor("Press Ctrl-C to stop.", 240_000);
    expect(first.stdout()).toContain(`web         http://localhost:${ports.WEB_PORT}`);
    // Nobody is an admin yet: the start says how to see the setup checklist.
    expect(first.stdout()).toContain(
      `To see the setup checklist there, put your email in ADMIN_EMAILS in .env, restart, then sign up with it and open the link mailed to it (without SMTP_URL: the newest file in ${join(dataDir, "mail")}).`,
    );

    const backend = await getJson(`http://127.0.0.1:${ports.BACKEND_PORT}/health`);
    expect(backend.status).toBe(200);
    expect(backend.body).toMatchObject({ status: "ok", service: "backend", database: "ok" });
    // The local driver can run agents here (as root: as their own OS users, through the 0711 data dir).
    expect(backend.body.provisioning).toEqual({ enabled: true });
    const web = await getJson(`http://127.0.0.1:${ports.WEB_PORT}/api/health`);
    expect(web.status).toBe(200);
    expect(web.body).toMatchObject({ status: "ok", service: "web" });
    expect(["healthy", "degraded", "unhealthy"]).toContain(web.body.health);
    const summarizer = await getJson(`http://127.0.0.1:${ports.SUMMARIZER_PORT}/health`);
    expect(summarizer).toEqual({
      status: 200,
      body: { status: "ok", service: "web-summarizer", version: "1.0.0" },
    });

    // Local secrets: generated once, owner-only.
    const secretsFile = join(dataDir, "secrets.json");
    expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
    // As root, local agents (their own OS users) pass through the data dir but cannot list it.
    if (process.getuid?.() === 0) expect((await stat(dataDir)).mode & 0o777).toBe(0o711);
    const secrets = JSON.parse(await readFile(secretsFile, "utf8"));
    for (const name of [
      "INTERNAL_API_KEY",
      "HMAC_SECRET",
      "SESSION_SECRET",
      "WALLET_ENCRYPTION_KEY",
      "DATA_ENCRYPTION_KEY",
    ]) {
      expect(secrets[name]).toMatch(/^[0-9a-f]{64}$/);
    }

    const databaseUrl = `postgres://postgres:${secrets.EMBEDDED_PG_PASSWORD}@127.0.0.1:${ports.EMBEDDED_PG_PORT}/agent_platform`;
    const write = new pg.Client({ connectionString: databaseUrl });
    await write.connect();
    await write.query(
      "insert into partner_inquiries (id, name, email, message) values ('pin_restart', 'Ada', 'ada@example.com', 'kept?')",
    );
    await write.end();

    expect(await stopLauncher(first)).toBe(0);
    for (const port of Object.values(ports)) expect(await isPortTaken(Number(port), "127.0.0.1")).toBe(false);
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(first.stdout()).toContain("[start] stopped");

    const second = runLauncher(root, env);
    runs.push(second);
    await second.waitFor("Press Ctrl-C to stop.", 120_000);
    expect(second.stdout()).toContain("migrations: 0 applied");
    const read = new pg.Client({ connectionString: databaseUrl });
    await read.connect();
    const { rows } = await read.query("select name, message from partner_inquiries where id = 'pin_restart'");
    await read.end();
    expect(rows).toEqual([{ name: "Ada", message: "kept?" }]);
    expect(JSON.parse(await readFile(secretsFile, "utf8"))).toEqual(secrets);

    expect(await stopLauncher(second)).toBe(0);
    expect(processesMentioning(dataDir)).toEqual([]);
  }, 400_000);
});
