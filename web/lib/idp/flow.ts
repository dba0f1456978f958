/**
 * The sign-in flow cookie: `state`, `nonce` and the PKCE code verifier, carried from GET /api/auth/idp to
 * the callback in a sealed (AES-256-GCM) HttpOnly cookie, so no server-side storage is needed.
 */
import { createHash } from "node:crypto";
import { decryptText, deriveKey, encryptText, randomToken } from "@svc/common";
import type { WebConfig } from "../infra/config";
import { serializeCookie } from "../infra/http/cookies";
import { type FlowState, flowStateSchema } from "./inputs";

export const FLOW_COOKIE = "svc-idp-flow";
export const FLOW_TTL_MS = 10 * 60 * 1000;
/** Sent only to the idp routes (the callback is under this path). */
const FLOW_COOKIE_PATH = "/api/auth/idp";

/**
 * A fresh flow: random state and nonce, a 64-character verifier (RFC 7636 allows 43 to 128), and the page
 * to return to.
 */
export function newFlowState(now: Date, next?: string): FlowState {
  return {
    state: randomToken(32),
    nonce: randomToken(32),
    codeVerifier: randomToken(48),
    startedAt: now.getTime(),
    ...(next ? { next } : {}),
  };
}

/** The S256 PKCE challenge of a verifier: base64url(SHA-256(verifier)). */
export function codeChallengeS256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

const flowKey = (config: WebConfig) => deriveKey(config.SESSION_SECRET, "idp-flow");

export function sealFlowState(config: WebConfig, flow: FlowState): string {
  return encryptText(flowKey(config), JSON.stringify(flow));
}

/** The flow of a cookie value, or null when it is missing, forged, malformed or older than 10 minutes. */
export function openFlowState(config: WebConfig, sealed: string | undefined, now: Date): FlowState | null {
  if (!sealed) return null;
  let value: unknown;
  try {
    value = JSON.parse(decryptText(flowKey(config), sealed));
  } catch {
    return null;
  }
  const parsed = flowStateSchema.safeParse(value);
  if (!parsed.success) return null;
  const age = now.getTime() - parsed.data.startedAt;
  return age >= 0 && age <= FLOW_TTL_MS ? parsed.data : null;
}

export function flowCookie(config: WebConfig, sealed: string): string {
  return serializeCookie(FLOW_COOKIE, sealed, {
    maxAgeSeconds: FLOW_TTL_MS / 1000,
    secure: config.cookieSecure,
    sameSite: "Lax",
    path: FLOW_COOKIE_PATH,
  });
}

export function clearedFlowCookie(config: WebConfig): string {
  return serializeCookie(FLOW_COOKIE, "", {
    maxAgeSeconds: 0,
    secure: config.cookieSecure,
    sameSite: "Lax",
    path: FLOW_COOKIE_PATH,
  });
}
