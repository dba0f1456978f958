/**
 * Tests: a browser's trip through identity-provider sign-in. Calls GET /api/auth/idp, follows its Location
 * to the fake provider's /authorize with a real fetch, and brings the provider's redirect back to the
 * callback handler with the cookie jar.
 */
import { GET as callbackRoute } from "@/app/api/auth/idp/callback/route";
import { GET as startRoute } from "@/app/api/auth/idp/route";
import { CookieJar, call } from "../../infra/testing";

export interface IdpTrip {
  /** The callback's answer (or the start route's, when it did not send the browser to the provider). */
  response: Response;
  /** Its Location header. */
  location: string;
  /** The `error` query value of a `/login?error=` location, if any. */
  error: string | null;
  /** The provider URL the start route redirected to. */
  authorizeUrl: URL | null;
  /** The callback URL the provider redirected back to (after `editCallback`). */
  callbackUrl: URL | null;
}

export async function signInThroughProvider(
  jar: CookieJar = new CookieJar(),
  options: {
    /** Change the provider's redirect before the browser follows it (e.g. a forged `state`). */
    editCallback?: (url: URL) => void;
    /** Runs between the provider's answer and the callback (e.g. to drop cookies or move the clock). */
    beforeCallback?: () => void | Promise<void>;
    /** The start route's path and query (default `/api/auth/idp`; `?next=` asks to return to a page). */
    startPath?: string;
  } = {},
): Promise<IdpTrip> {
  const start = await call(startRoute, { path: options.startPath ?? "/api/auth/idp", jar });
  const startLocation = start.headers.get("location") ?? "";
  if (start.status !== 302 || new URL(startLocation).pathname === "/login") {
    return {
      response: start,
      location: startLocation,
      error: errorOf(startLocation),
      authorizeUrl: null,
      callbackUrl: null,
    };
  }
  const authorizeUrl = new URL(startLocation);
  const provider = await fetch(authorizeUrl, { redirect: "manual" });
  if (provider.status !== 302)
    throw new Error(`provider /authorize answered ${provider.status}: ${await provider.text()}`);
  const callbackUrl = new URL(provider.headers.get("location") ?? "");
  options.editCallback?.(callbackUrl);
  await options.beforeCallback?.();
  const response = await call(callbackRoute, { path: callbackUrl.pathname + callbackUrl.search, jar });
  const location = response.headers.get("location") ?? "";
  return { response, location, error: errorOf(location), authorizeUrl, callbackUrl };
}

function errorOf(location: string): string | null {
  try {
    return new URL(location).searchParams.get("error");
  } catch {
    return null;
  }
}
