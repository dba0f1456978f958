import { bearerCredential } from "@svc/common";
import { findApiKeyOwner } from "@svc/common/credentials";
import type { WebContext } from "../context";
import { sessionUserOf } from "../sessions/service";
import { unauthorized } from "./errors";

/** Who made a request and how: a session cookie, or a bearer API key (then also which key). */
export interface DualAuthResult {
  user: { id: string; email: string; name: string };
  via: "session" | "apiKey";
  apiKeyId?: string;
}

/** The token of an `Authorization: Bearer <token>` header (blanks around it dropped, none inside), or undefined. */
export function bearerToken(request: Request): string | undefined {
  const token = bearerCredential(request.headers.get("authorization"))?.trim();
  return token && !/\s/.test(token) ? token : undefined;
}

/**
 * Dual auth (spec "Authentication"): the session cookie first, then `Authorization: Bearer svc_...`
 * (an active API key, found by its SHA-256); 401 when neither is valid.
 */
export async function authenticateSessionOrApiKey(
  ctx: WebContext,
  request: Request,
): Promise<DualAuthResult> {
  const sessionUser = await sessionUserOf(ctx, request);
  if (sessionUser) {
    return { user: { id: sessionUser.id, email: sessionUser.email, name: sessionUser.name }, via: "session" };
  }
  const token = bearerToken(request);
  if (token) {
    const owner = await findApiKeyOwner(ctx, token);
    if (owner) return { user: owner.user, via: "apiKey", apiKeyId: owner.apiKeyId };
  }
  throw unauthorized();
}
