import { z } from "zod";

/** `POST /api/register`. */
export const registerSchema = z.object({
  email: z
    .string({ error: (i) => (i.input === undefined ? "email is required" : "email must be a string") })
    .trim()
    .min(1, "email is required")
    .max(254, "email is too long")
    .pipe(z.email("email is not a valid address")),
  password: z
    .string({ error: (i) => (i.input === undefined ? "password is required" : "password must be a string") })
    .min(1, "password is required")
    .min(8, "password must be at least 8 characters")
    // bcrypt reads at most 72 bytes: a longer password would be silently cut, so refuse it.
    .refine((p) => Buffer.byteLength(p, "utf8") <= 72, "password must be at most 72 bytes"),
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
