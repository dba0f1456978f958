import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { afterAll, describe, expect, it } from "vitest";
import { closedToOthers } from "../backend/src/hosting/local-users";
import {
  loadDotEnv,
  loadLauncherConfig,
  publicHostOf,
  publicUrlOf,
  sharedUserNotice,
} from "./launcher/config";
import { runLauncher } from "./testing/launcher";

const root = fileURLToPath(new URL("..", import.meta.url));
const checkoutOpenToOthers = (await closedToOthers(join(root, "node_modules", "tsx"))) === null;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("launcher configuration", () => {
  it("defaults to the spec's ports and the three services", () => {
    const config = loadLauncherConfig("/srv/app", {});
    expect(config).toMatchObject({
      WEB_PORT: 3000,
      BACKEND_PORT: 4000,
      SUMMARIZER_PORT: 4100,
      WRAPPER_PORT: 8080,
      HOST: "127.0.0.1",
      START_SERVICES: ["backend", "web", "summarizer"],
      dataDir: "/srv/app/.data",
    });
  });

  it("the address people open is http://localhost:<WEB_PORT> unless PUBLIC_URL says otherwise (passkeys refuse IP addresses)", () => {
    expect(publicUrlOf(loadLauncherConfig("/a", {}))).toBe("http://localhost:3000");
    expect(publicUrlOf(loadLauncherConfig("/a", { WEB_PORT: "3100", HOST: "0.0.0.0" }))).toBe(
      "http://localhost:3100",
    );
    expect(publicUrlOf(loadLauncherConfig("/a", { HOST: "10.0.0.5" }))).toBe("http://10.0.0.5:3000");
    expect(publicUrlOf(loadLauncherConfig("/a", { PUBLIC_URL: "https://agents.example.com" }))).toBe(
      "https://agents.example.com",
    );
    for (const host of ["127.0.0.1", "127.0.1.1", "::1", "::", "0.0.0.0", "localhost"])
      expect(publicHostOf(host), host).toBe("localhost");
    expect(publicHostOf("platform.internal")).toBe("platform.internal");
  });

  it("reads .env at the root: its variables where the environment has none, the environment winning", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-dotenv-"));
    dirs.push(dir);
    expect(loadDotEnv(dir, {})).toEqual([]);
    await writeFile(
      join(dir, ".env"),
      '# the platform\nAI_PROVIDER_KEY=from-file\nWEB_PORT=3200\nMAIL_FROM="Agents <a@example.com>"\nEMPTY=\n',
    );
    const env: Record<string, string | undefined> = { WEB_PORT: "3300" };
    expect(loadDotEnv(dir, env).sort()).toEqual(["AI_PROVIDER_KEY", "EMPTY", "MAIL_FROM"]);
    expect(env).toEqual({
      AI_PROVIDER_KEY: "from-file",
      WEB_PORT: "3300",
      MAIL_FROM: "Agents <a@example.com>",
      EMPTY: "",
    });
    expect(loadLauncherConfig(dir, env).WEB_PORT).toBe(3300);
  });

  it("warns that local agents share the platform's OS user only when it is not root and the driver is local", () => {
    const local = loadLauncherConfig("/a", {});
    expect(sharedUserNotice(local, 1000)).toBe(
      "local agents run as this OS user (uid 1000) and can read the platform's files, .data/secrets.json " +
        "included: for single-user development only; otherwise use HOSTING_PROVIDER=docker (or run as root: " +
        "each agent then gets its own OS user)",
    );
    expect(sharedUserNotice(local, 0)).toBeNull();
    expect(sharedUserNotice(loadLauncherConfig("/a", { HOSTING_PROVIDER: "docker" }), 1000)).toBeNull();
    expect(() => loadLauncherConfig("/a", { HOSTING_PROVIDER: "kubernetes" })).toThrow(/HOSTING_PROVIDER/);
  });

  // uid 65534 must reach the checkout (node_modules/tsx); a clone under a closed directory cannot show this.
  it.runIf(process.getuid?.() === 0 && checkoutOpenToOthers)(
    "`npm start` not as root prints the shared-user warning once (here before stopping at a taken port)",
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "svc-launch-notice-"));
      dirs.push(dataDir);
      const blocker = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
      try {
        const env = { BACKEND_PORT: String(port), DATA_DIR: dataDir };
        const nobody = runLauncher(root, env, { uid: 65534, gid: 65534 });
        expect(await nobody.exited).toBe(1);
        expect(nobody.stderr()).toContain(`port ${port} for backend is already in use`);
        const warnings = nobody
          .stdout()
          .split("\n")
          .filter((line) => line.includes("single-user development"));
        expect(warnings).toEqual([`[start] ${sharedUserNotice(loadLauncherConfig(root, {}), 65534)}`]);

        const asRoot = runLauncher(root, env);
        expect(await asRoot.exited).toBe(1);
        expect(asRoot.stdout()).not.toContain("single-user development");
      } finally {
        blocker.close();
      }
    },
  );

  it("names each malformed variable", () => {
    expect(() => loadLauncherConfig("/a", { BACKEND_PORT: "4x" })).toThrow(
      /BACKEND_PORT: must be a port number/,
    );
    expect(() => loadLauncherConfig("/a", { DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
    expect(() => loadLauncherConfig("/a", { START_SERVICES: "backend,mailer" })).toThrow(/START_SERVICES/);
  });

  it("a non-numeric port stops `npm start` at once with one line naming it, starting nothing", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-launch-bad-"));
    dirs.push(dataDir);
    const run = runLauncher(root, { WEB_PORT: "abc", DATA_DIR: dataDir });
    expect(await run.exited).toBe(1);
    expect(run.stderr().trim()).toBe(
      'npm start: invalid configuration: WEB_PORT: must be a port number (1-65535) (got "abc")',
    );
    expect(existsSync(join(dataDir, "postgres"))).toBe(false);
  });

  it("a taken port stops `npm start` with one line naming it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-launch-port-"));
    dirs.push(dataDir);
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
    try {
      const run = runLauncher(root, { BACKEND_PORT: String(port), DATA_DIR: dataDir });
      expect(await run.exited).toBe(1);
      expect(run.stderr().trim()).toBe(
        `npm start: port ${port} for backend is already in use (set BACKEND_PORT to another port)`,
      );
      expect(existsSync(join(dataDir, "postgres"))).toBe(false);
    } finally {
      blocker.close();
    }
  });
});
