/**
 * The browser's WebAuthn failures in words, for the errors @simplewebauthn/browser raises (its WebAuthnError
 * codes, the DOMExceptions it passes through). The real browser's: web/e2e/passkey-address.test.ts.
 */
import { WebAuthnError } from "@simplewebauthn/browser";
import { describe, expect, it } from "vitest";
import { isPasskeyDomain, type PasskeyPage, passkeyErrorMessage } from "./browser-errors";

const at = (origin: string, pathname = "/login", publicUrl = "http://localhost:3000"): PasskeyPage => {
  const url = new URL(pathname, origin);
  return {
    publicUrl,
    location: { hostname: url.hostname, origin: url.origin, pathname },
    secureContext: true,
  };
};
const dom = (name: string, message = "browser words") => Object.assign(new Error(message), { name });
const webAuthn = (code: WebAuthnError["code"], cause = dom("SecurityError")) =>
  new WebAuthnError({ message: "library words", code, cause });

describe("passkeyErrorMessage", () => {
  it("an IP address: names it and the address passkeys work at, never 'invalid domain'", () => {
    const message = passkeyErrorMessage(
      webAuthn("ERROR_INVALID_DOMAIN"),
      "sign-in",
      at("http://127.0.0.1:3000", "/login"),
    );
    expect(message).toBe(
      "Passkeys need a domain name, and this page is open at an IP address (127.0.0.1). Open http://localhost:3000/login and try again.",
    );
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_INVALID_DOMAIN"),
        "add",
        at("http://192.168.1.5:3000", "/dashboard/settings", "http://192.168.1.5:3000"),
      ),
    ).toBe(
      "Passkeys need a domain name, and this server's address is an IP address (192.168.1.5): ask its administrator to set PUBLIC_URL to a name such as localhost.",
    );
  });

  it("another relying party than the page's host: where to go, or what the administrator checks", () => {
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_INVALID_RP_ID"),
        "add",
        at("http://platform.example.com", "/dashboard/settings", "https://app.example.com"),
      ),
    ).toBe(
      "Passkeys of this server belong to another address than platform.example.com. Open https://app.example.com/dashboard/settings and try again.",
    );
    expect(passkeyErrorMessage(webAuthn("ERROR_INVALID_RP_ID"), "sign-in", at("http://localhost:3000"))).toBe(
      "Passkeys of this server belong to another address than localhost. Ask its administrator to check PUBLIC_URL and WEBAUTHN_RP_ID.",
    );
  });

  it("cancelled, timed out, already registered, unsupported: what happened and what to do", () => {
    const page = at("http://localhost:3000");
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY", dom("NotAllowedError")),
        "sign-in",
        page,
      ),
    ).toBe(
      "No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site. Try again, or sign in with your password.",
    );
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY", dom("NotAllowedError")),
        "add",
        page,
      ),
    ).toBe("No passkey was added: the request was cancelled or timed out. Try again.");
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED", dom("InvalidStateError")),
        "add",
        page,
      ),
    ).toBe("This device already holds a passkey for your account: you can sign in with it.");
    expect(passkeyErrorMessage(webAuthn("ERROR_CEREMONY_ABORTED", dom("AbortError")), "add", page)).toBe(
      "The passkey request was cancelled. Try again to add a passkey.",
    );
    expect(
      passkeyErrorMessage(
        webAuthn("ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT", dom("ConstraintError")),
        "add",
        page,
      ),
    ).toContain("Your device or security key cannot add a passkey here");
    expect(passkeyErrorMessage(new Error("WebAuthn is not supported in this browser"), "sign-in", page)).toBe(
      "This browser does not support passkeys: use another browser, or sign in with your password.",
    );
    expect(passkeyErrorMessage(new Error("something else"), "add", { ...page, secureContext: false })).toBe(
      "Passkeys need a secure page: open this site over https (or at http://localhost) to add a passkey.",
    );
    expect(passkeyErrorMessage(new Error("Registration was not completed"), "add", page)).toBe(
      "Could not add a passkey: Registration was not completed. Try again.",
    );
  });
});

describe("isPasskeyDomain", () => {
  it("localhost and domains, never IP addresses", () => {
    for (const host of ["localhost", "app.example.com", "xn--bcher-kva.example"])
      expect(isPasskeyDomain(host)).toBe(true);
    for (const host of ["127.0.0.1", "192.168.1.5", "[::1]", "::1", "intranet"])
      expect(isPasskeyDomain(host)).toBe(false);
  });
});
