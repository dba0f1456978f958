import { z } from "zod";

export const PASSKEY_LABEL_MAX = 64;
export const DEFAULT_PASSKEY_LABEL = "Passkey";

/** A required field: "<name> is required" when absent, "<name> must be <what>" when of another type. */
function required(name: string, what: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? `${name} is required` : `${name} must be ${what}`,
  };
}

/** A challenge: `0x` and the hex of 32 random bytes. Any other string cannot be one we issued. */
const challenge = z
  .string(required("challenge", "a string"))
  .regex(/^0x[0-9a-f]{64}$/, "challenge must be a 0x-prefixed hex string of 32 bytes");

/** POST /api/passkey/register/verify. `credential` is the browser's RegistrationResponseJSON. */
export const registerVerifyBody = z.strictObject({
  credential: z.looseObject({}, required("credential", "an object")),
  challenge,
  label: z
    .string({ error: "label must be a string" })
    .trim()
    .max(PASSKEY_LABEL_MAX, `label must be at most ${PASSKEY_LABEL_MAX} characters`)
    .meta({ title: "Passkey name" })
    .optional()
    // An empty label means "no label": the default.
    .transform((label) => label || DEFAULT_PASSKEY_LABEL),
});
export type RegisterVerifyInput = z.infer<typeof registerVerifyBody>;

/** POST /api/passkey/auth/options. */
export const authOptionsBody = z.strictObject({
  identifier: z
    .string(required("identifier", "a string"))
    .trim()
    .min(1, "identifier is required")
    .max(320, "identifier must be at most 320 characters"),
});
export type AuthOptionsInput = z.infer<typeof authOptionsBody>;

/** POST /api/passkey/auth/verify. `response` is the browser's AuthenticationResponseJSON. */
export const authVerifyBody = z.strictObject({
  response: z.looseObject(
    { id: z.string(required("response.id", "a string")).min(1, "response.id is required") },
    required("response", "an object"),
  ),
  challenge,
});
export type AuthVerifyInput = z.infer<typeof authVerifyBody>;

/** The `[id]` of DELETE /api/passkeys/[id]. */
export const passkeyIdParam = z.string().min(1).max(1024);
