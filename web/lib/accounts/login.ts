import bcrypt from "bcryptjs";
import type { WebContext } from "../context";
import { rateLimited } from "../ratelimit/errors";
import { consumeRate } from "../ratelimit/service";
import { createSession } from "../sessions/service";
import { invalidCredentials } from "./errors";
import type { LoginInput } from "./schema";
import { BCRYPT_COST, type RequestMeta } from "./service";
import { findUserByEmail } from "./users";

export const LOGIN_LIMIT = { points: 5, windowMs: 15 * 60 * 1000 };

let dummyHash: Promise<string> | undefined;

/** A hash of the same cost to compare against when there is no account: unknown emails cost the same time. */
function timingDummy(): Promise<string> {
  dummyHash ??= bcrypt.hash("no-account-has-this-password", BCRYPT_COST);
  return dummyHash;
}

/** Counts a login attempt against the per-IP window (5 per 15 minutes): 429 beyond. */
export async function countLoginAttempt(ctx: WebContext, ip: string): Promise<void> {
  const limit = await consumeRate(ctx, `login:${ip}`, LOGIN_LIMIT);
  if (!limit.allowed) {
    throw rateLimited("login attempts", limit.retryAfterSeconds);
  }
}

/** Checks email and password (401 on any mismatch, same cost either way) and starts a session. */
export async function loginWithPassword(ctx: WebContext, input: LoginInput, meta: RequestMeta) {
  const user = await findUserByEmail(ctx, input.email);
  const hash = user?.passwordHash ?? (await timingDummy());
  const matches = await bcrypt.compare(input.password, hash);
  if (!user?.passwordHash || !matches) throw invalidCredentials();
  const session = await createSession(ctx, user.id, { ip: meta.ip, userAgent: meta.userAgent ?? undefined });
  return { user: { id: user.id, name: user.name }, session };
}
