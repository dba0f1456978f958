/** Test helpers: the passkey ceremonies driven through the real route handlers, like the browser does. */
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { passkeyChallenges, passkeys, sessions } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { POST as authOptionsRoute } from "@/app/api/passkey/auth/options/route";
import { POST as registerOptionsRoute } from "@/app/api/passkey/register/options/route";
import { POST as registerVerifyRoute } from "@/app/api/passkey/register/verify/route";
import type { WebConfig } from "../../infra/config";
import { type CookieJar, call, signedInUser, webContext } from "../../infra/testing";
import { SoftwareAuthenticator } from "./authenticator";

export function newAuthenticator(
  config: WebConfig,
  options: Partial<ConstructorParameters<typeof SoftwareAuthenticator>[0]> = {},
): SoftwareAuthenticator {
  return new SoftwareAuthenticator({ rpId: config.rpId, origin: config.origin, ...options });
}

export async function registerOptions(
  jar: CookieJar,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; challenge: string }> {
  const res = await call(registerOptionsRoute, { method: "POST", jar });
  if (res.status !== 200) throw new Error(`register/options answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Registers a new software passkey for the jar's user; fails the test when the server refuses. */
export async function registerPasskey(
  jar: CookieJar,
  config: WebConfig,
  options: { label?: string; authenticator?: SoftwareAuthenticator } = {},
): Promise<SoftwareAuthenticator> {
  const authenticator = options.authenticator ?? newAuthenticator(config);
  const { options: creation, challenge } = await registerOptions(jar);
  const res = await call(registerVerifyRoute, {
    method: "POST",
    jar,
    json: { credential: authenticator.register(creation), challenge, label: options.label },
  });
  if (res.status !== 200) throw new Error(`register/verify answered ${res.status}: ${await res.text()}`);
  return authenticator;
}

export async function authOptions(
  identifier: string,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; challenge: string }> {
  const res = await call(authOptionsRoute, { method: "POST", json: { identifier } });
  if (res.status !== 200) throw new Error(`auth/options answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** A user with one registered software passkey, and no session left over from its registration. */
export async function userWithPasskey(config: WebConfig, authenticator?: SoftwareAuthenticator) {
  const { user, jar } = await signedInUser();
  const key = await registerPasskey(jar, config, { authenticator });
  await webContext().db.delete(sessions).where(eq(sessions.userId, user.id));
  return { user, jar, authenticator: key };
}

export const passkeyRow = async (id: string) =>
  (await webContext().db.select().from(passkeys).where(eq(passkeys.id, id)))[0];

export const passkeysOf = (userId: string) =>
  webContext().db.select().from(passkeys).where(eq(passkeys.userId, userId));

export const sessionsOf = (userId: string) =>
  webContext().db.select().from(sessions).where(eq(sessions.userId, userId));

export const challengeRow = async (challenge: string) =>
  (
    await webContext().db.select().from(passkeyChallenges).where(eq(passkeyChallenges.challenge, challenge))
  )[0];
