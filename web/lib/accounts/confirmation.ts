import type { WebContext } from "../infra/context";
import { createSession, findSessionUser } from "../sessions/service";
import { verifyEmail } from "./service";
import { isSignupBrowserOf } from "./signup-browser";

export interface ConfirmationOutcome {
  /** Where the browser goes: a page that says what happened. */
  location: string;
  /** A new session when the link signed the person in. */
  sessionToken?: string;
  /** The sign-up browser's cookie is spent (the link worked) and is cleared. */
  clearSignupCookie: boolean;
}

/**
 * What opening the confirmation link does (issue 26 item 7). A good link proves the address; only the browser
 * that signed up (its cookie, within the hour: ./signup-browser.ts) is signed in by it. A browser that merely
 * holds the link (forwarded, a mail scanner, an address someone else registered) gets no session: the
 * sign-in page says the address is confirmed, as it says when a link is bad, used or expired.
 */
export async function openConfirmationLink(
  ctx: WebContext,
  input: {
    token: string | null;
    sessionCookie: string | undefined;
    signupCookie: string | undefined;
    ip: string;
    userAgent: string | undefined;
  },
): Promise<ConfirmationOutcome> {
  const userId = await verifyEmail(ctx, input.token);
  if (!userId) return { location: "/login?error=VerificationFailed", clearSignupCookie: false };
  const signedIn = await findSessionUser(ctx, input.sessionCookie);
  if (signedIn?.id === userId) return { location: "/dashboard?verified=1", clearSignupCookie: true };
  if (isSignupBrowserOf(ctx.config, input.signupCookie, userId, ctx.clock.now())) {
    const session = await createSession(ctx, userId, { ip: input.ip, userAgent: input.userAgent });
    return { location: "/dashboard?verified=1", sessionToken: session.token, clearSignupCookie: true };
  }
  return { location: "/login?verified=1", clearSignupCookie: true };
}
