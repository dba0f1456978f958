import { z } from "zod";
import { invalidToken } from "./errors";

/** Security event tokens are small; anything larger is not one. */
export const MAX_SECURITY_EVENT_BYTES = 64 * 1024;

/** The claims of a security event token the receiver acts on (signature and iss/aud checked by jose). */
export const securityEventClaimsSchema = z.object({
  jti: z.string("must be a string").min(1, "must not be empty").max(256),
  events: z
    .record(z.string(), z.unknown(), "must be an object")
    .refine((events) => Object.keys(events).length > 0, "must name at least one event"),
});
export type SecurityEventClaims = z.infer<typeof securityEventClaimsSchema>;

/** One event's data: the subject (by email or by the provider's `sub`) and an optional reason. */
export const securityEventDataSchema = z.looseObject({
  subject: z
    .looseObject({
      subject_type: z.string().optional(),
      iss: z.string().optional(),
      sub: z.string().optional(),
      email: z.string().optional(),
    })
    .optional(),
  reason: z.string().optional(),
});
export type SecurityEventData = z.infer<typeof securityEventDataSchema>;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The compact JWT of a request body: the raw text (`application/secevent+jwt`, text/plain, or any type),
 * or a JSON string holding it. 400 when it is not a compact JWS.
 */
export function securityEventTokenOf(body: string): string {
  if (Buffer.byteLength(body) > MAX_SECURITY_EVENT_BYTES) {
    throw invalidToken("security event token is too large");
  }
  let text = body.trim();
  if (text.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "string") text = parsed.trim();
    } catch {
      // not a JSON string: judged as raw text below
    }
  }
  if (!COMPACT_JWS.test(text)) throw invalidToken("body must be a signed JWT");
  return text;
}
