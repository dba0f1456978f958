import { randomBytes } from "node:crypto";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { sealGatewayToken } from "@svc/common";
import { findApiKeyOwner } from "@svc/common/credentials";
import { startFakeOidcProvider } from "@svc/common/testing";
import {
  agents,
  apiKeys,
  emailVerificationTokens,
  idpAccounts,
  passkeyChallenges,
  passkeys,
  sessions,
  users,
} from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET as getCsrf } from "@/app/api/auth/csrf/route";
import { POST as loginRoute } from "@/app/api/auth/login/route";
import { GET as sessionRoute } from "@/app/api/auth/session/route";
import { GET as verifyEmailRoute } from "@/app/api/auth/verify-email/route";
import { POST as createKeyRoute } from "@/app/api/keys/route";
import { POST as authOptionsRoute } from "@/app/api/passkey/auth/options/route";
import { POST as authVerifyRoute } from "@/app/api/passkey/auth/verify/route";
import { POST as registerRoute } from "@/app/api/register/route";
import { CookieJar, call, useWebTestContext, webContext } from "../infra/testing";
import { authOptions, registerPasskey } from "../passkeys/testing/flows";
import { startTestBackend } from "../runtime/testing/backend";
import { signInThroughProvider } from "./testing/sign-in";

// Issue #12 item 2: an attacker registers the victim's email before the victim ever signs in, and adds
// ways back in; the victim's first identity-provider sign-in must leave none of them working.
const dataDir = `/tmp/svc-idp-claim-test-${process.pid}`;
const fake = await startFakeOidcProvider();
// The real backend (in-process, behind a recording relay): it is asked for the claimed agents' new tokens.
const backendEnv = {
  INTERNAL_API_KEY: "claim-internal-key-0123456789abcdef",
  HMAC_SECRET: "claim-hmac-secret-0123456789abcdef",
  DATA_ENCRYPTION_KEY: "c1a1".repeat(16),
};
const backend = await startTestBackend(backendEnv);
const { clock, config } = useWebTestContext({
  IDP_ISSUER: fake.url,
  IDP_CLIENT_ID: fake.clientId,
  IDP_CLIENT_SECRET: fake.clientSecret,
  DATA_DIR: dataDir,
  BACKEND_URL: backend.url,
  ...backendEnv,
});
fake.setNow(() => clock.now());
afterAll(async () => {
  await fake.close();
  await backend.close();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;
const db = () => webContext().db;

async function logIn(email: string, password: string): Promise<{ status: number; jar: CookieJar }> {
  const jar = new CookieJar();
  const ip = freshIp();
  const csrf = await call(getCsrf, { path: "/api/auth/csrf", jar, ip });
  const res = await call(loginRoute, {
    method: "POST",
    path: "/api/auth/login",
    json: { email, password },
    jar,
    ip,
    headers: { "x-csrf-token": (await csrf.json()).header },
  });
  return { status: res.status, jar };
}

async function registerWithPassword(email: string, password: string): Promise<void> {
  const registered = await call(registerRoute, {
    method: "POST",
    path: "/api/register",
    json: { email, password },
    ip: freshIp(),
  });
  expect(registered.status).toBe(201);
}

async function sessionUser(jar: CookieJar) {
  return (await (await call(sessionRoute, { path: "/api/auth/session", jar })).json()).user;
}

async function createKey(jar: CookieJar): Promise<string> {
  const res = await call(createKeyRoute, {
    method: "POST",
    path: "/api/keys",
    jar,
    json: { name: "mine", scopes: ["all"] },
  });
  expect(res.status).toBe(201);
  return (await res.json()).key;
}

async function verificationLink(): Promise<string> {
  const dir = join(dataDir, "mail");
  const files = (await readdir(dir)).sort();
  const text = await readFile(join(dir, files.at(-1) as string), "utf8");
  return /http:\/\/localhost:3000\/api\/auth\/verify-email\?token=[\w-]+/.exec(text)?.[0] as string;
}

const rowsOf = async (userId: string) => ({
  passkeys: await db().select().from(passkeys).where(eq(passkeys.userId, userId)),
  challenges: await db().select().from(passkeyChallenges).where(eq(passkeyChallenges.userId, userId)),
  apiKeys: await db().select().from(apiKeys).where(eq(apiKeys.userId, userId)),
  emailTokens: await db()
    .select()
    .from(emailVerificationTokens)
    .where(eq(emailVerificationTokens.userId, userId)),
  links: (await db().select().from(idpAccounts).where(eq(idpAccounts.userId, userId))).map(
    (l) => l.providerAccountId,
  ),
  sessions: await db().select().from(sessions).where(eq(sessions.userId, userId)),
});

describe("identity-provider sign-in claiming an account whose email was never proven", () => {
  it("leaves the first owner's password, sessions, passkey, API key and mailed token all useless", async () => {
    const email = "victim@example.com";
    // The attacker: registers the victim's email with a password, signs in, adds a passkey and an API key,
    // and keeps a passkey challenge open for later.
    await registerWithPassword(email, "attacker-password");
    const link = await verificationLink();
    const attacker = await logIn(email, "attacker-password");
    expect(attacker.status).toBe(200);
    const authenticator = await registerPasskey(attacker.jar, config);
    const apiKey = await createKey(attacker.jar);
    const pending = await authOptions(email);
    const [account] = await db().select().from(users).where(eq(users.email, email));
    expect(account.emailVerifiedAt).toBeNull();
    expect(await findApiKeyOwner(webContext(), apiKey)).toMatchObject({ user: { id: account.id } });
    const before = await rowsOf(account.id);
    expect([before.passkeys.length, before.apiKeys.length, before.emailTokens.length]).toEqual([1, 1, 1]);
    expect(before.sessions).toHaveLength(1);

    // The victim signs in with the identity provider, which vouches for the address.
    fake.setAccount({ sub: "sub-victim", email, email_verified: true, name: "Victim" });
    const victim = new CookieJar();
    const trip = await signInThroughProvider(victim);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    expect((await sessionUser(victim)).id).toBe(account.id);

    const [after] = await db().select().from(users).where(eq(users.id, account.id));
    expect(after.passwordHash).toBeNull();
    expect(after.emailVerifiedAt?.toISOString()).toBe(clock.now().toISOString());
    const left = await rowsOf(account.id);
    expect(left.passkeys).toEqual([]);
    expect(left.challenges).toEqual([]);
    expect(left.apiKeys).toEqual([]);
    expect(left.emailTokens).toEqual([]);
    expect(left.links).toEqual(["sub-victim"]);
    expect(left.sessions).toHaveLength(1);

    // Nothing the attacker holds works any more.
    expect(await sessionUser(attacker.jar)).toBeNull();
    expect((await logIn(email, "attacker-password")).status).toBe(401);
    expect(await findApiKeyOwner(webContext(), apiKey)).toBeNull();
    const options = await call(authOptionsRoute, { method: "POST", json: { identifier: email } });
    expect(options.status).toBe(404);
    const replay = await call(authVerifyRoute, {
      method: "POST",
      json: { response: authenticator.authenticate(pending.options), challenge: pending.challenge },
    });
    expect(replay.status).toBe(400);
    expect((await replay.json()).code).toBe("invalid_challenge");
    const verify = await call(verifyEmailRoute, { path: link });
    expect(verify.headers.get("location")).toBe("http://localhost:3000/login?error=VerificationFailed");
    expect((await sessionUser(victim)).id).toBe(account.id);
  });

  it("removes another identity's link: the first owner cannot come back through the provider", async () => {
    const email = "second-victim@example.com";
    // The attacker's provider account claims the address without verifying it: a new, unproven account.
    fake.setAccount({ sub: "sub-attacker", email, email_verified: false, name: "Attacker" });
    const attacker = new CookieJar();
    expect((await signInThroughProvider(attacker)).location).toBe("http://localhost:3000/dashboard");
    const { id } = await sessionUser(attacker);
    const apiKey = await createKey(attacker);
    expect((await rowsOf(id)).links).toEqual(["sub-attacker"]);

    fake.setAccount({ sub: "sub-owner", email, email_verified: true, name: "Owner" });
    const owner = new CookieJar();
    expect((await signInThroughProvider(owner)).location).toBe("http://localhost:3000/dashboard");
    expect((await sessionUser(owner)).id).toBe(id);

    const left = await rowsOf(id);
    expect(left.links).toEqual(["sub-owner"]);
    expect(left.apiKeys).toEqual([]);
    expect(await sessionUser(attacker)).toBeNull();
    expect(await findApiKeyOwner(webContext(), apiKey)).toBeNull();

    // The attacker's identity again: no link, and the now-proven account is not linked to an unverified email.
    fake.setAccount({ sub: "sub-attacker", email, email_verified: false, name: "Attacker" });
    const again = new CookieJar();
    const retry = await signInThroughProvider(again);
    expect(retry.error).toBe("IdpAuthFailed");
    expect(await sessionUser(again)).toBeNull();
    expect((await rowsOf(id)).links).toEqual(["sub-owner"]);
  });

  it("revokes the gateway token of the first owner's agent and asks the backend for a new one", async () => {
    const email = "agent-victim@example.com";
    await registerWithPassword(email, "attacker-password");
    const [account] = await db().select().from(users).where(eq(users.email, email));
    // The attacker's agent, whose token they could have read through the agent itself.
    const token = randomBytes(32).toString("hex");
    const [agent] = await db()
      .insert(agents)
      .values({
        id: `agt_${randomBytes(8).toString("hex")}`,
        userId: account.id,
        name: "Squatter's agent",
        gatewayTokenEncrypted: sealGatewayToken(backendEnv.DATA_ENCRYPTION_KEY, token),
        status: "running",
      })
      .returning();
    // The agent's own call to the backend with its token (an empty body on purpose): a known token gets as far
    // as the body (400); a bearer that is neither a gateway token nor the internal key is refused (403).
    const agentCall = () =>
      fetch(`${backend.directUrl}/api/ai/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [] }),
      }).then((res) => res.status);
    expect(await agentCall()).toBe(400);

    fake.setAccount({ sub: "sub-agent-victim", email, email_verified: true, name: "Victim" });
    expect((await signInThroughProvider(new CookieJar())).location).toBe("http://localhost:3000/dashboard");

    const [after] = await db().select().from(agents).where(eq(agents.id, agent.id));
    expect(after.gatewayTokenEncrypted).toBeNull();
    // The backend re-checks a token it knows against the stored one within a second: wait for that.
    await expect.poll(agentCall).toBe(403);
    // The web asked the backend to issue a new token and hand it to the runtime, for the claimed account.
    const heal = () => backend.exchanges.filter((e) => e.path === `/api/agents/${agent.id}/heal-token`);
    await expect.poll(() => heal().length).toBe(1);
    expect(heal()[0].method).toBe("POST");
    expect(heal()[0].headers["x-user-id"]).toBe(account.id);
  });
});
