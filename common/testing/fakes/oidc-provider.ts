/**
 * A fake OpenID Connect identity provider on 127.0.0.1: discovery and RISC configuration documents, a JWKS,
 * an /authorize endpoint that "signs in" the configured account at once and redirects back, and a /token
 * endpoint that checks the client, the code and the PKCE verifier and returns an RS256-signed id_token.
 * It also signs security event tokens (RISC), with its own key or with keys it does not publish.
 */
import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeOidcAccount {
  sub: string;
  /** Omitted from the id_token when undefined. */
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** How the next token responses fail: an HTTP error status, or a connection dropped without an answer. */
export type FakeTokenFailure = { status: number; body?: unknown } | "network";

export interface FakeIdTokenTampering {
  /** Sign with a key the JWKS does not publish (`kid` still the published one unless `kid` is given). */
  signWith?: "provider" | "rogue";
  kid?: string;
  /** Replace the nonce the client sent. */
  nonce?: string;
  /** Extra or replaced claims (`iss`, `aud`, `exp`, ...). */
  claims?: JWTPayload;
}

export interface SignSecurityEventOptions {
  /** `rogue`: a key pair the JWKS does not publish. */
  signWith?: "provider" | "rogue";
  /** The `kid` header; default the published key's id. */
  kid?: string;
}

export interface FakeOidcProvider {
  url: string;
  /** The `iss` of every token it signs (its base URL). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The published signing key id. */
  kid: string;
  upstream: FakeUpstream;
  /** The account the next /authorize signs in. */
  setAccount(account: FakeOidcAccount): void;
  /** Make /authorize redirect back with `error=<code>` (null: succeed again). */
  setAuthorizeError(error: string | null): void;
  setTokenFailure(failure: FakeTokenFailure | null): void;
  tamperIdToken(tampering: FakeIdTokenTampering | null): void;
  /** Fields merged into the next token responses (a field set to undefined is left out). */
  setTokenResponseOverrides(overrides: Record<string, unknown> | null): void;
  /** While down, every endpoint answers 503. */
  setDown(down: boolean): void;
  /** Every successful token response, in order (to compare with what the client stored). */
  issuedTokens: Array<Record<string, unknown>>;
  /** The clock of `iat`/`exp` (default the wall clock): give it the test's clock. */
  setNow(now: () => Date): void;
  /** Query of the last /authorize request. */
  lastAuthorize(): URLSearchParams | undefined;
  /** How many requests reached a path (query ignored). */
  requestCount(path: string): number;
  /** Back to the defaults (account, no failures, no tampering, no overrides, up); keeps logs and the clock. */
  reset(): void;
  /** A signed security event token; `iss`, `aud`, `jti`, `iat` default to valid values. */
  signSecurityEvent(
    claims: JWTPayload & { events: Record<string, unknown> },
    options?: SignSecurityEventOptions,
  ): Promise<string>;
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | null;
  scope: string;
  account: FakeOidcAccount;
}

const DEFAULT_ACCOUNT: FakeOidcAccount = {
  sub: "10769150350006150715113082367",
  email: "idp.user@example.com",
  email_verified: true,
  name: "Idp User",
};

function base64url(bytes: Buffer): string {
  return bytes.toString("base64url");
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

function clientFromRequest(
  authorization: string | undefined,
  form: URLSearchParams,
): { id: string | null; secret: string | null } {
  if (authorization?.startsWith("Basic ")) {
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) {
      return {
        id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
        secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
      };
    }
  }
  return { id: form.get("client_id"), secret: form.get("client_secret") };
}

export async function startFakeOidcProvider(
  options: { clientId?: string; clientSecret?: string; kid?: string } = {},
): Promise<FakeOidcProvider> {
  const clientId = options.clientId ?? "fake-client-id.apps.example.com";
  const clientSecret = options.clientSecret ?? "fake-client-secret";
  const kid = options.kid ?? "fake-key-1";
  const providerKeys = await generateKeyPair("RS256", { extractable: true });
  const rogueKeys = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(providerKeys.publicKey)), kid, alg: "RS256", use: "sig" };

  let account: FakeOidcAccount = { ...DEFAULT_ACCOUNT };
  let authorizeError: string | null = null;
  let tokenFailure: FakeTokenFailure | null = null;
  let tampering: FakeIdTokenTampering | null = null;
  let tokenOverrides: Record<string, unknown> | null = null;
  const issuedTokens: Array<Record<string, unknown>> = [];
  let down = false;
  let now: () => Date = () => new Date();
  let lastAuthorize: URLSearchParams | undefined;
  const codes = new Map<string, IssuedCode>();
  let issuer = "";

  const sign = (
    payload: JWTPayload,
    signWith: "provider" | "rogue" = "provider",
    keyId: string = kid,
    typ?: string,
  ) =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: "RS256", kid: keyId, ...(typ ? { typ } : {}) })
      .sign(signWith === "rogue" ? rogueKeys.privateKey : providerKeys.privateKey);

  const upstream = await startFakeUpstream(async (req, res, body) => {
    const url = new URL(req.url ?? "/", issuer);
    if (down) return sendJson(res, 503, { error: "temporarily_unavailable" });
    if (req.method === "GET" && url.pathname === "/.well-known/openid-configuration") {
      return sendJson(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        scopes_supported: ["openid", "email", "profile"],
        token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (req.method === "GET" && url.pathname === "/.well-known/risc-configuration") {
      return sendJson(res, 200, {
        issuer,
        jwks_uri: `${issuer}/jwks`,
        delivery_methods_supported: ["https://schemas.openid.net/secevent/risc/delivery-method/push"],
        configuration_endpoint: `${issuer}/risc/stream`,
      });
    }
    if (req.method === "GET" && url.pathname === "/jwks") {
      return sendJson(res, 200, { keys: [publicJwk] });
    }
    if (req.method === "GET" && url.pathname === "/authorize") {
      const q = url.searchParams;
      lastAuthorize = q;
      const redirectUri = q.get("redirect_uri");
      if (q.get("client_id") !== clientId || !redirectUri) {
        return sendJson(res, 400, { error: "invalid_request", error_description: "unknown client" });
      }
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256") {
        return sendJson(res, 400, {
          error: "invalid_request",
          error_description: "code flow with S256 only",
        });
      }
      const back = new URL(redirectUri);
      const state = q.get("state");
      if (authorizeError) {
        back.searchParams.set("error", authorizeError);
      } else {
        const code = base64url(randomBytes(24));
        codes.set(code, {
          clientId,
          redirectUri,
          codeChallenge: q.get("code_challenge") ?? "",
          nonce: q.get("nonce"),
          scope: q.get("scope") ?? "",
          account: { ...account },
        });
        back.searchParams.set("code", code);
      }
      if (state !== null) back.searchParams.set("state", state);
      return redirect(res, back.toString());
    }
    if (req.method === "POST" && url.pathname === "/token") {
      if (tokenFailure === "network") {
        res.socket?.destroy();
        return;
      }
      if (tokenFailure)
        return sendJson(res, tokenFailure.status, tokenFailure.body ?? { error: "server_error" });
      const form = new URLSearchParams(body.toString("utf8"));
      const client = clientFromRequest(req.headers.authorization, form);
      if (client.id !== clientId || client.secret !== clientSecret) {
        return sendJson(res, 401, { error: "invalid_client" });
      }
      const code = form.get("code") ?? "";
      const issued = codes.get(code);
      codes.delete(code);
      if (form.get("grant_type") !== "authorization_code" || !issued) {
        return sendJson(res, 400, { error: "invalid_grant", error_description: "unknown or used code" });
      }
      if (form.get("redirect_uri") !== issued.redirectUri) {
        return sendJson(res, 400, { error: "invalid_grant", error_description: "redirect_uri mismatch" });
      }
      const challenge = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url");
      if (challenge !== issued.codeChallenge) {
        return sendJson(res, 400, { error: "invalid_grant", error_description: "code_verifier mismatch" });
      }
      const iat = Math.floor(now().getTime() / 1000);
      const claims: JWTPayload = {
        iss: issuer,
        aud: clientId,
        sub: issued.account.sub,
        iat,
        exp: iat + 3600,
        ...(issued.account.email !== undefined ? { email: issued.account.email } : {}),
        ...(issued.account.email_verified !== undefined
          ? { email_verified: issued.account.email_verified }
          : {}),
        ...(issued.account.name !== undefined ? { name: issued.account.name } : {}),
        ...(issued.nonce !== null ? { nonce: issued.nonce } : {}),
      };
      if (tampering?.nonce !== undefined) claims.nonce = tampering.nonce;
      Object.assign(claims, tampering?.claims);
      const idToken = await sign(claims, tampering?.signWith, tampering?.kid ?? kid);
      const answer: Record<string, unknown> = {
        access_token: `ya29.fake-access-${base64url(randomBytes(18))}`,
        refresh_token: `1//fake-refresh-${base64url(randomBytes(18))}`,
        id_token: idToken,
        token_type: "Bearer",
        expires_in: 3599,
        scope: issued.scope,
        ...tokenOverrides,
      };
      issuedTokens.push(JSON.parse(JSON.stringify(answer)));
      return sendJson(res, 200, answer);
    }
    return sendJson(res, 404, { error: "not_found" });
  });
  issuer = upstream.url;

  return {
    url: upstream.url,
    issuer,
    clientId,
    clientSecret,
    kid,
    upstream,
    setAccount(next) {
      account = { ...next };
    },
    setAuthorizeError(error) {
      authorizeError = error;
    },
    setTokenFailure(failure) {
      tokenFailure = failure;
    },
    tamperIdToken(next) {
      tampering = next;
    },
    setTokenResponseOverrides(next) {
      tokenOverrides = next;
    },
    issuedTokens,
    setDown(next) {
      down = next;
    },
    setNow(next) {
      now = next;
    },
    lastAuthorize: () => lastAuthorize,
    requestCount: (path) => upstream.requests.filter((r) => r.path.split("?")[0] === path).length,
    reset() {
      account = { ...DEFAULT_ACCOUNT };
      authorizeError = null;
      tokenFailure = null;
      tampering = null;
      tokenOverrides = null;
      down = false;
    },
    signSecurityEvent(claims, signOptions = {}) {
      const payload: JWTPayload = {
        iss: issuer,
        aud: clientId,
        jti: base64url(randomBytes(16)),
        iat: Math.floor(now().getTime() / 1000),
        ...claims,
      };
      return sign(payload, signOptions.signWith, signOptions.kid ?? kid, "secevent+jwt");
    },
    close: () => upstream.close(),
  };
}
