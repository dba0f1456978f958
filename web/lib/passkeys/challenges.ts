import { randomBytes } from "node:crypto";
import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { passkeyChallenges } from "@svc/db/schema";
import { and, eq, lt } from "drizzle-orm";
import type { WebConfig } from "../infra/config";
import { challengeExpired, invalidChallenge } from "./errors";

export type ChallengePurpose = "register" | "authenticate";

interface Deps {
  db: Database;
  clock: Clock;
  config: WebConfig;
}

export interface IssuedChallenge {
  /** The form returned by the API and stored: `0x` + hex. */
  challenge: string;
  /** The raw bytes, handed to simplewebauthn (which puts their base64url form in the options). */
  bytes: Uint8Array<ArrayBuffer>;
}

/** The base64url form of a `0x` challenge: what the browser signs inside clientDataJSON. */
export function challengeToBase64Url(challenge: string): string {
  return Buffer.from(challenge.slice(2), "hex").toString("base64url");
}

/**
 * A new single-use challenge of 32 random bytes for one user and purpose, valid for
 * PASSKEY_CHALLENGE_TTL_MS. Expired challenges of anyone are dropped on the way: they can never be used.
 */
export async function issueChallenge(
  deps: Deps,
  userId: string,
  purpose: ChallengePurpose,
): Promise<IssuedChallenge> {
  const bytes = new Uint8Array(randomBytes(32));
  const challenge = `0x${Buffer.from(bytes).toString("hex")}`;
  const now = deps.clock.now();
  await deps.db.delete(passkeyChallenges).where(lt(passkeyChallenges.expiresAt, now));
  await deps.db.insert(passkeyChallenges).values({
    challenge,
    userId,
    purpose,
    expiresAt: new Date(now.getTime() + deps.config.PASSKEY_CHALLENGE_TTL_MS),
    createdAt: now,
  });
  return { challenge, bytes };
}

/**
 * Takes a challenge out of the store (one DELETE ... RETURNING, so two concurrent verifications cannot
 * both get it) and returns its user. `userId` restricts it to that user's challenges (registration).
 * 400 when it is unknown, already used, of another purpose or user, or expired.
 */
export async function consumeChallenge(
  deps: Deps,
  challenge: string,
  purpose: ChallengePurpose,
  userId?: string,
): Promise<{ userId: string }> {
  const conditions = [eq(passkeyChallenges.challenge, challenge), eq(passkeyChallenges.purpose, purpose)];
  if (userId !== undefined) conditions.push(eq(passkeyChallenges.userId, userId));
  const [row] = await deps.db
    .delete(passkeyChallenges)
    .where(and(...conditions))
    .returning({ userId: passkeyChallenges.userId, expiresAt: passkeyChallenges.expiresAt });
  if (!row?.userId) {
    throw invalidChallenge();
  }
  if (row.expiresAt.getTime() <= deps.clock.now().getTime()) {
    throw challengeExpired();
  }
  return { userId: row.userId };
}
