import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express, { type RequestHandler } from "express";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { wrapperErrorMapper } from "../http/errors";
import {
  aiProviderFrom,
  REDACTED,
  redact,
  restoreRedacted,
  writeRuntimeConfig,
} from "../runtime/config-file";
import { adminAuth } from "./auth";
import { configRoutes } from "./config";

let dir: string;
let configPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wrapper-config-"));
  configPath = join(dir, "state", "openclaw.json");
});
afterEach(async () => {
  await chmod(dir, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

function appFor(
  options: { requireAdmin?: RequestHandler; onWritten?: (c: Record<string, unknown>) => void } = {},
) {
  const app = express();
  app.use(
    configRoutes({
      configPath,
      requireAdmin: options.requireAdmin ?? adminAuth(undefined).requireAdmin,
      // The plain writer (an external runtime); OpenClaw's validated writer is tested against the real runtime.
      write: (incoming) => writeRuntimeConfig(configPath, incoming),
      reloads: false,
      onWritten: options.onWritten,
    }),
  );
  app.use(wrapperErrorMapper());
  return app;
}

async function storeConfig(text: string) {
  await mkdir(join(dir, "state"), { recursive: true });
  await writeFile(configPath, text);
}

describe("redact", () => {
  it("redacts sensitive keys at any depth, in arrays, case-insensitively", () => {
    const input = {
      channels: {
        telegram: { botToken: "123:abc", enabled: true },
        slack: { BOTTOKEN: "xoxb", AppToken: "xapp" },
      },
      models: { providers: { openai: { apiKey: "sk-1", baseUrl: "https://api.example" } } },
      accounts: [{ name: "a", Password: "p" }, { name: "b", nested: [{ SECRET: "s", key: "k" }] }, "plain"],
      gateway: { auth: { mode: "token", token: "t" } },
      google: { serviceAccount: { private_key: "pk" } },
      keys: ["not", "redacted"],
      empty: { token: "", password: null },
      count: 3,
    };
    expect(redact(input)).toEqual({
      channels: {
        telegram: { botToken: REDACTED, enabled: true },
        slack: { BOTTOKEN: REDACTED, AppToken: REDACTED },
      },
      models: { providers: { openai: { apiKey: REDACTED, baseUrl: "https://api.example" } } },
      accounts: [
        { name: "a", Password: REDACTED },
        { name: "b", nested: [{ SECRET: REDACTED, key: REDACTED }] },
        "plain",
      ],
      gateway: { auth: REDACTED },
      google: { serviceAccount: REDACTED },
      keys: ["not", "redacted"],
      empty: { token: "", password: null },
      count: 3,
    });
    // The input is not modified.
    expect(input.channels.telegram.botToken).toBe("123:abc");
  });

  it("restoreRedacted keeps stored secrets by path, takes new values, drops unknown placeholders", () => {
    const stored = { a: { token: "old", list: [{ apiKey: "k0" }, { apiKey: "k1" }] }, auth: { token: "x" } };
    const incoming = {
      a: { token: REDACTED, list: [{ apiKey: REDACTED }, { apiKey: "new1" }, { apiKey: REDACTED }] },
      auth: REDACTED,
      other: { secret: REDACTED },
      note: REDACTED,
    };
    expect(restoreRedacted(incoming, stored)).toEqual({
      a: { token: "old", list: [{ apiKey: "k0" }, { apiKey: "new1" }, {}] },
      auth: { token: "x" },
      other: {},
      note: REDACTED,
    });
  });
});

describe("GET /api/config", () => {
  it("404 when there is no file", async () => {
    const res = await request(appFor()).get("/api/config");
    expect(res.status).toBe(404);
    expect(res.body.ok).toBe(false);
    expect(typeof res.body.error).toBe("string");
  });

  it("reads JSON5 with comments and trailing commas, redacted", async () => {
    await storeConfig(`// runtime config
{
  /* gateway */
  gateway: { port: 18789, auth: { token: 'abc' } },
  channels: { telegram: { botToken: "123:x", allowFrom: ['me',], }, },
}`);
    const res = await request(appFor()).get("/api/config");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      config: {
        gateway: { port: 18789, auth: REDACTED },
        channels: { telegram: { botToken: REDACTED, allowFrom: ["me"] } },
      },
    });
    expect(res.text).not.toContain("123:x");
  });

  it("500 when the file is not valid JSON5", async () => {
    await storeConfig("{ not: valid: json5 ");
    const res = await request(appFor()).get("/api/config");
    expect(res.status).toBe(500);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/JSON5/);
  });

  it("needs admin", async () => {
    await storeConfig("{}");
    const app = appFor({ requireAdmin: adminAuth("pw").requireAdmin });
    const res = await request(app).get("/api/config");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: "unauthorized" });
    expect((await request(app).get("/api/config").set("x-admin-token", "pw")).status).toBe(200);
    expect((await request(app).post("/api/config").send({ a: 1 })).status).toBe(401);
  });
});

describe("POST /api/config", () => {
  it("writes the config (dir created, mode 0600) and a redacted round trip keeps the secrets", async () => {
    const written: unknown[] = [];
    const app = appFor({ onWritten: (c) => written.push(c) });
    const first = {
      channels: { telegram: { botToken: "123:secret", enabled: true } },
      list: [{ key: "k1" }],
    };
    const res = await request(app).post("/api/config").send(first);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(typeof res.body.message).toBe("string");
    expect(JSON.parse(await readFile(configPath, "utf8"))).toEqual(first);
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);

    const read = await request(app).get("/api/config");
    const edited = {
      ...read.body.config,
      channels: { telegram: { ...read.body.config.channels.telegram, enabled: false } },
    };
    expect(edited.channels.telegram.botToken).toBe(REDACTED);
    expect((await request(app).post("/api/config").send(edited)).status).toBe(200);
    expect(JSON.parse(await readFile(configPath, "utf8"))).toEqual({
      channels: { telegram: { botToken: "123:secret", enabled: false } },
      list: [{ key: "k1" }],
    });
    expect(written).toHaveLength(2);
    // Atomic write: no temp file left behind.
    expect(await readdir(join(dir, "state"))).toEqual(["openclaw.json"]);
  });

  it("replaces a secret that is sent with a new value", async () => {
    await storeConfig(JSON.stringify({ apiKey: "old" }));
    expect((await request(appFor()).post("/api/config").send({ apiKey: "new" })).status).toBe(200);
    expect(JSON.parse(await readFile(configPath, "utf8"))).toEqual({ apiKey: "new" });
  });

  it("400 for an array, a string, null and bad JSON, and leaves the file unchanged", async () => {
    await storeConfig('{"keep": true}');
    const app = appFor();
    for (const body of ["[1,2]", '"text"', "null", "{bad json", "42"]) {
      const res = await request(app).post("/api/config").set("Content-Type", "application/json").send(body);
      expect(res.status, body).toBe(400);
      expect(res.body.ok).toBe(false);
      expect(typeof res.body.error).toBe("string");
    }
    const noBody = await request(app).post("/api/config");
    expect(noBody.status).toBe(400);
    expect(await readFile(configPath, "utf8")).toBe('{"keep": true}');
  });

  it("500 when the file cannot be written", async () => {
    // The parent "directory" is a regular file, which fails even for root.
    await writeFile(join(dir, "not-a-dir"), "x");
    configPath = join(dir, "not-a-dir", "openclaw.json");
    const res = await request(appFor()).post("/api/config").send({ a: 1 });
    expect(res.status).toBe(500);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/cannot write/);
  });
});

describe("aiProviderFrom", () => {
  it("null without a file, then agents.defaults.model, then a provider, cached by mtime", async () => {
    expect(aiProviderFrom(configPath)).toBeNull();
    // A top-level `aiProvider` is not an OpenClaw key (the file would be invalid): it is not read.
    await storeConfig("{ aiProvider: 'anthropic' }");
    expect(aiProviderFrom(configPath)).toBeNull();
    await storeConfig("{ agents: { defaults: { model: { primary: 'openai/gpt-5' } } } }");
    await utimes(configPath, new Date(), new Date(Date.now() + 5000));
    expect(aiProviderFrom(configPath)).toBe("openai");
    await storeConfig("{ agents: { defaults: { model: 'google/gemini' } } }");
    await utimes(configPath, new Date(), new Date(Date.now() + 10000));
    expect(aiProviderFrom(configPath)).toBe("google");
    await storeConfig("{ models: { providers: { ollama: {} } } }");
    await utimes(configPath, new Date(), new Date(Date.now() + 15000));
    expect(aiProviderFrom(configPath)).toBe("ollama");
    await storeConfig("{ broken");
    await utimes(configPath, new Date(), new Date(Date.now() + 20000));
    expect(aiProviderFrom(configPath)).toBeNull();
  });
});
