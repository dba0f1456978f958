import { z } from "zod";

/** The error codes of GET /api/auth/idp/callback, sent to `/login?error=<code>`. */
export const IDP_ERROR_CODES = [
  "AccessDenied",
  "IdpAuthFailed",
  "IdpNotConfigured",
  "IdpTokenFailed",
  "IdpNoEmail",
  "IdpAuthError",
] as const;
export type IdpErrorCode = (typeof IDP_ERROR_CODES)[number];

/** The fields of the provider's `/.well-known/openid-configuration` the sign-in uses. */
export const oidcDiscoverySchema = z.object({
  issuer: z.string().optional(),
  authorization_endpoint: z.url({ protocol: /^https?$/ }),
  token_endpoint: z.url({ protocol: /^https?$/ }),
  jwks_uri: z.url({ protocol: /^https?$/ }),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});
export type OidcDiscovery = z.infer<typeof oidcDiscoverySchema>;

/** The provider's token endpoint answer to the authorization-code grant. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  id_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.coerce.number().positive().optional(),
  scope: z.string().optional(),
  token_type: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** Query parameters of the provider's redirect to the callback. */
export const callbackQuerySchema = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
});
export type CallbackQuery = z.infer<typeof callbackQuerySchema>;

/** What the sealed flow cookie holds between GET /api/auth/idp and the callback. */
export const flowStateSchema = z.object({
  state: z.string().min(1),
  nonce: z.string().min(1),
  codeVerifier: z.string().min(43).max(128),
  /** When the flow started (ms since epoch), so the 10-minute lifetime is checked on the server too. */
  startedAt: z.number(),
  /** The page to return to after signing in (checked again when followed). */
  next: z.string().max(2048).optional(),
});
export type FlowState = z.infer<typeof flowStateSchema>;

/** The id_token claims the sign-in reads (signature, issuer, audience and expiry are checked by jose). */
export const idTokenClaimsSchema = z.object({
  sub: z.string().min(1),
  nonce: z.string().optional(),
  email: z.string().optional(),
  /** Some providers send the boolean as a string. */
  email_verified: z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]).optional(),
  name: z.string().optional(),
});
export type IdTokenClaims = z.infer<typeof idTokenClaimsSchema>;
