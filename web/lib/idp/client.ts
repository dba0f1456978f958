/**
 * The one client of the OpenID Connect identity provider: its discovery and RISC configuration documents,
 * the token endpoint and its signing keys. The provider's address comes from IDP_ISSUER (configuration,
 * not user input), so these calls do not go through the outbound URL guard.
 */
import { createOutboundClient, type OutboundAnswer, OutboundError } from "@svc/common";
import { createRemoteJWKSet, type JSONWebKeySet } from "jose";
import { z } from "zod";
import { type OidcDiscovery, oidcDiscoverySchema, type TokenResponse, tokenResponseSchema } from "./inputs";

/** These bound a hung identity provider well below a browser's patience. */
export const DISCOVERY_TIMEOUT_MS = 10_000;
export const TOKEN_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

/** The provider did not answer, answered non-2xx, or answered something that is not the expected JSON. */
export class IdpUpstreamError extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = "IdpUpstreamError";
    this.status = status;
  }
}

/** `{issuer}/.well-known/<document>`; a trailing slash of the issuer is not doubled. */
export function wellKnownUrl(
  issuer: string,
  document: "openid-configuration" | "risc-configuration",
): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/${document}`;
}

/** Configured provider: no URL guard; its redirects are followed as fetch did, answers capped. */
const idpClient = createOutboundClient({
  name: "provider",
  maxResponseBytes: MAX_DOCUMENT_BYTES,
  maxRedirects: 5,
});

interface IdpRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

async function fetchJson(url: string, init: IdpRequest, timeoutMs: number, what: string): Promise<unknown> {
  let res: OutboundAnswer;
  try {
    res = await idpClient.request({ url, ...init, timeoutMs });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === "too_large") throw new IdpUpstreamError(`${what}: answer too large`);
    const reason = err.reason === "timeout" ? `timed out after ${timeoutMs} ms` : "unreachable";
    throw new IdpUpstreamError(`${what}: provider ${reason}`);
  }
  const text = res.text;
  if (!res.ok) {
    // The OAuth error code is safe to report; the rest of the body is not logged.
    let code = "";
    try {
      const parsed = JSON.parse(text) as { error?: unknown };
      if (typeof parsed.error === "string") code = ` (${parsed.error.slice(0, 64)})`;
    } catch {
      // not JSON
    }
    throw new IdpUpstreamError(`${what}: provider answered ${res.status}${code}`, res.status);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new IdpUpstreamError(`${what}: answer is not JSON`, res.status);
  }
}

function parseDocument<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new IdpUpstreamError(
    `${what}: ${issue?.path.join(".") || "document"} ${issue?.message ?? "invalid"}`,
  );
}

const discoveries = new Map<string, Promise<OidcDiscovery>>();

/** The provider's discovery document, fetched once per process (a failed fetch is retried next time). */
export function discoverOidc(issuer: string): Promise<OidcDiscovery> {
  let pending = discoveries.get(issuer);
  if (!pending) {
    pending = fetchJson(
      wellKnownUrl(issuer, "openid-configuration"),
      {},
      DISCOVERY_TIMEOUT_MS,
      "discovery",
    ).then((doc) => parseDocument(oidcDiscoverySchema, doc, "discovery"));
    discoveries.set(issuer, pending);
    pending.catch(() => discoveries.delete(issuer));
  }
  return pending;
}

export interface CodeExchange {
  clientId: string;
  clientSecret?: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
}

/**
 * The authorization-code grant with the PKCE verifier. The client authenticates with HTTP Basic (the OAuth
 * default) unless the provider only lists `client_secret_post`.
 */
export async function exchangeCode(discovery: OidcDiscovery, input: CodeExchange): Promise<TokenResponse> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: input.code,
    redirect_uri: input.redirectUri,
    code_verifier: input.codeVerifier,
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const methods = discovery.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  if (input.clientSecret && methods.includes("client_secret_basic")) {
    // RFC 6749 2.3.1: id and secret are form-encoded before the Basic encoding.
    const pair = `${encodeURIComponent(input.clientId)}:${encodeURIComponent(input.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else {
    form.set("client_id", input.clientId);
    if (input.clientSecret) form.set("client_secret", input.clientSecret);
  }
  const body = await fetchJson(
    discovery.token_endpoint,
    { method: "POST", headers, body: form.toString() },
    TOKEN_TIMEOUT_MS,
    "token exchange",
  );
  return parseDocument(tokenResponseSchema, body, "token exchange");
}

const remoteKeySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The id_token signing keys at `jwks_uri` (jose caches them and refetches on an unknown `kid`). */
export function idTokenKeys(jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
  let keys = remoteKeySets.get(jwksUri);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: DISCOVERY_TIMEOUT_MS });
    remoteKeySets.set(jwksUri, keys);
  }
  return keys;
}

const riscConfigurationSchema = z.object({ jwks_uri: z.url({ protocol: /^https?$/ }) });
const jwksSchema = z.object({ keys: z.array(z.looseObject({ kty: z.string() })) });

/** The security-event signing keys: `jwks_uri` of `{issuer}/.well-known/risc-configuration`, then that JWKS. */
export async function fetchRiscSigningKeys(issuer: string): Promise<JSONWebKeySet> {
  const config = parseDocument(
    riscConfigurationSchema,
    await fetchJson(
      wellKnownUrl(issuer, "risc-configuration"),
      {},
      DISCOVERY_TIMEOUT_MS,
      "RISC configuration",
    ),
    "RISC configuration",
  );
  const jwks = parseDocument(
    jwksSchema,
    await fetchJson(config.jwks_uri, {}, DISCOVERY_TIMEOUT_MS, "RISC signing keys"),
    "RISC signing keys",
  );
  return jwks as JSONWebKeySet;
}
