import { z } from "zod";

/** A password being set, its messages naming it as `label` does: 8 characters to 72 bytes. */
function newPassword(label: string) {
  return (
    z
      .string({
        error: (i) => (i.input === undefined ? `${label} is required` : `${label} must be a string`),
      })
      .min(1, `${label} is required`)
      .min(8, `${label} must be at least 8 characters`)
      // bcrypt reads at most 72 bytes: a longer password would be silently cut, so refuse it.
      .refine((p) => Buffer.byteLength(p, "utf8") <= 72, `${label} must be at most 72 bytes`)
      .meta({ title: label })
  );
}

/** An email address as a form field labelled `label` takes it: trimmed, at most 254 characters. */
function emailAddress(label: string) {
  return z
    .string({ error: (i) => (i.input === undefined ? `${label} is required` : `${label} must be a string`) })
    .trim()
    .min(1, `${label} is required`)
    .max(254, `${label} is too long`)
    .pipe(z.email(`${label} is not a valid address`))
    .meta({ title: label });
}

/** A password being checked (never validated beyond presence: it is compared with the stored hash). */
function currentPassword(label: string) {
  return z
    .string({ error: (i) => (i.input === undefined ? `${label} is required` : `${label} must be a string`) })
    .min(1, `${label} is required`)
    .max(1024, `${label} is too long`)
    .meta({ title: label });
}

/** `POST /api/register`. */
export const registerSchema = z.object({
  email: z
    .string({ error: (i) => (i.input === undefined ? "email is required" : "email must be a string") })
    .trim()
    .min(1, "email is required")
    .max(254, "email is too long")
    .pipe(z.email("email is not a valid address")),
  password: newPassword("Password"),
  name: z.string("name must be a string").trim().max(100, "name must be at most 100 characters").optional(),
  referralCode: z
    .string("referralCode must be a string")
    .trim()
    .regex(/^[A-Za-z0-9-]{1,20}$/, "referralCode must be letters, digits and hyphens, at most 20 characters")
    .optional(),
});
export type RegisterInput = z.infer<typeof registerSchema>;

/** `POST /api/auth/login`. */
export const loginSchema = z.object({
  email: z
    .string({
      error: (i) => (i.input === undefined ? "email is required" : "email must be a string"),
    })
    .trim()
    .min(1, "email is required"),
  password: z
    .string({
      error: (i) => (i.input === undefined ? "password is required" : "password must be a string"),
    })
    .min(1, "password is required"),
});
export type LoginInput = z.infer<typeof loginSchema>;

/**
 * `GET /api/auth/verify-email?token=`: for the API description; the route reads the token itself, because
 * a missing or bad one redirects to the login page rather than answering 400.
 */
export const verifyEmailQuery = z.object({ token: z.string().max(200).optional() });

/** `POST /api/auth/forgot-password`. */
export const forgotPasswordSchema = z.object({ email: emailAddress("Email") });
export type ForgotPasswordInput = z.infer<typeof forgotPasswordSchema>;

/** `POST /api/auth/reset-password`: the token of the mailed link and the new password. */
export const resetPasswordSchema = z.object({
  token: z
    .string({ error: "The reset link's token is missing: open the link from the mail again" })
    .min(1, "The reset link's token is missing: open the link from the mail again")
    .max(200, "The reset link's token is not valid: ask for a new link")
    .meta({ title: "The reset link's token" }),
  password: newPassword("New password"),
});
export type ResetPasswordInput = z.infer<typeof resetPasswordSchema>;

/** `POST /api/account/password`. */
export const changePasswordSchema = z.object({
  currentPassword: currentPassword("Current password"),
  newPassword: newPassword("New password"),
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/** `PATCH /api/account`. */
export const changeNameSchema = z.object({
  name: z
    .string({ error: (i) => (i.input === undefined ? "Name is required" : "Name must be a string") })
    .trim()
    .min(1, "Name is required")
    .max(100, "Name must be at most 100 characters"),
});
export type ChangeNameInput = z.infer<typeof changeNameSchema>;

/** `POST /api/account/email`: the new address, and the password when the account has one. */
export const changeEmailSchema = z.object({
  email: emailAddress("New email"),
  password: currentPassword("Password").optional(),
});
export type ChangeEmailInput = z.infer<typeof changeEmailSchema>;

/** `GET /api/account/email/confirm?token=` (the route reads the token itself: a bad one redirects). */
export const confirmEmailChangeQuery = z.object({ token: z.string().max(200).optional() });

/**
 * `DELETE /api/account`: the password when the account has one, otherwise `confirm`, the account's email
 * typed out.
 */
export const deleteAccountSchema = z.object({
  password: currentPassword("Password").optional(),
  confirm: z.string("Confirmation must be a string").trim().max(254, "Confirmation is too long").optional(),
});
export type DeleteAccountInput = z.infer<typeof deleteAccountSchema>;
