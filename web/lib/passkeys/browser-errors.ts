/**
 * The browser's WebAuthn failures in words (sign-in and "Add passkey"): @simplewebauthn/browser's codes and
 * the DOMException names behind them, instead of "127.0.0.1 is an invalid domain" or "The operation either
 * timed out or was not allowed". Callers show an answer of our own API (ApiError) as it is.
 */

export type PasskeyCeremony = "sign-in" | "add";

export interface PasskeyPage {
  /** The address the server expects (PUBLIC_URL): passkeys are bound to its host name. */
  publicUrl: string;
  /** Where the page is, e.g. `window.location`. */
  location: { hostname: string; origin: string; pathname: string };
  /** `window.isSecureContext`. */
  secureContext: boolean;
}

/** A host name WebAuthn accepts: `localhost` or a domain, never an IP address (the library's rule). */
export function isPasskeyDomain(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    /^((xn--[a-z0-9-]+|[a-z0-9]+(-[a-z0-9]+)*)\.)+([a-z]{2,}|xn--[a-z0-9-]+)$/i.test(hostname)
  );
}

/** The same page at the server's public address, when that address can hold passkeys and differs. */
function publicAddressOf(page: PasskeyPage): string | null {
  try {
    const publicUrl = new URL(page.publicUrl);
    if (!isPasskeyDomain(publicUrl.hostname) || publicUrl.origin === page.location.origin) return null;
    return `${publicUrl.origin}${page.location.pathname}`;
  } catch {
    return null;
  }
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function causeNameOf(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const name = (cause as { name?: unknown } | null)?.name ?? (err as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : undefined;
}

/** What went wrong with a passkey ceremony, in words a person can act on. */
export function passkeyErrorMessage(err: unknown, ceremony: PasskeyCeremony, page: PasskeyPage): string {
  const action = ceremony === "sign-in" ? "sign in with a passkey" : "add a passkey";
  const elsewhere = publicAddressOf(page);
  const openThere = elsewhere ? ` Open ${elsewhere} and try again.` : "";
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : "";

  if (code === "ERROR_INVALID_DOMAIN" || !isPasskeyDomain(page.location.hostname)) {
    return elsewhere
      ? `Passkeys need a domain name, and this page is open at an IP address (${page.location.hostname}).${openThere}`
      : `Passkeys need a domain name, and this server's address is an IP address (${page.location.hostname}): ask its administrator to set PUBLIC_URL to a name such as localhost.`;
  }
  if (code === "ERROR_INVALID_RP_ID")
    return `Passkeys of this server belong to another address than ${page.location.hostname}.${openThere || " Ask its administrator to check PUBLIC_URL and WEBAUTHN_RP_ID."}`;
  if (!page.secureContext)
    return `Passkeys need a secure page: open this site over https (or at http://localhost) to ${action}.`;
  if (message === "WebAuthn is not supported in this browser")
    return `This browser does not support passkeys: use another browser${ceremony === "sign-in" ? ", or sign in with your password" : ""}.`;
  if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED")
    return "This device already holds a passkey for your account: you can sign in with it.";
  if (code === "ERROR_CEREMONY_ABORTED" || causeNameOf(err) === "AbortError")
    return `The passkey request was cancelled. Try again to ${action}.`;
  if (code?.startsWith("ERROR_AUTHENTICATOR_") || code === "ERROR_AUTO_REGISTER_USER_VERIFICATION_FAILURE")
    return `Your device or security key cannot ${action} here (it lacks what this site asks for: a passkey kept on the device, with a PIN or biometric check). Try another one.`;
  if (causeNameOf(err) === "NotAllowedError")
    return ceremony === "sign-in"
      ? "No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site. Try again, or sign in with your password."
      : "No passkey was added: the request was cancelled or timed out. Try again.";
  if (causeNameOf(err) === "SecurityError")
    return `The browser refused to ${action} on this page for security reasons.${openThere}`;
  return `Could not ${action}: ${message || "the browser did not finish the request"}. Try again.`;
}

/** `passkeyErrorMessage` for the page the browser shows. */
export function passkeyErrorHere(err: unknown, ceremony: PasskeyCeremony, publicUrl: string): string {
  return passkeyErrorMessage(err, ceremony, {
    publicUrl,
    location: window.location,
    secureContext: window.isSecureContext,
  });
}
