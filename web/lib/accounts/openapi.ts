import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, ok, redirect, session } from "../infra/openapi/responses";
import {
  changeEmailSchema,
  changeNameSchema,
  changePasswordSchema,
  confirmEmailChangeQuery,
  deleteAccountSchema,
  forgotPasswordSchema,
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  verifyEmailQuery,
} from "./inputs";

const tooMany = (what: string) => ({ 429: `${what} (\`rate_limited\`, with \`retryAfterSeconds\`)` });

/** The account as `GET /api/account` answers it (./service.ts `AccountSummary`). */
const account = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    isAdmin: z.boolean(),
    emailVerified: z.boolean(),
    referralCode: z.string(),
    referralCredits: z.string(),
    hasPassword: z.boolean(),
    pendingEmail: z.object({ email: z.string(), expiresAt: z.string() }).nullable(),
  })
  .meta({ id: "Account" });

/** The account's own routes (issue 26 item 7): the account, its name, email and password, and its deletion. */
export const accountsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/account",
    summary: "The signed-in account: name, email (confirmed or not, a pending change), referral",
    tags: ["account"],
    auth: ["session"],
    success: { status: 200, description: "the account", schema: account },
    errors: session,
  },
  {
    method: "patch",
    path: "/api/account",
    summary: "Change the account's name",
    tags: ["account"],
    auth: ["session"],
    body: changeNameSchema,
    success: { status: 200, description: "the account, renamed", schema: account },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body (an empty name, over 100 characters)",
      ...tooMany("more than 10 changes in 15 minutes"),
    },
  },
  {
    method: "delete",
    path: "/api/account",
    summary:
      'Delete the account: its agents (removed from the hosting platform), files, keys, sessions, tasks, wallets\' keys; board records others see say "deleted user"',
    description:
      "Confirmed with `password`, or, for an account without a password, `confirm` set to its email. Clears the session cookie. A failure before the last step leaves the account in place (some agents or files may be gone); try again.",
    tags: ["account"],
    auth: ["session"],
    body: deleteAccountSchema,
    backendRoutes: ["POST /api/agents/{agentId}/deprovision"],
    success: {
      status: 200,
      description: "`{deleted: true, agents, files}` (how many of each were removed)",
      schema: z.object({ deleted: z.literal(true), agents: z.number(), files: z.number() }),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body, no confirmation (`confirmation_required`), or a wrong password (`wrong_password`)",
      409: "a deploy or repair of the user's agent is running (`deploy_in_progress`)",
      ...tooMany("5 wrong passwords in 15 minutes"),
      502: "an agent could not be removed from the hosting platform, or the backend could not be reached (`agent_removal_failed`)",
    },
  },
  {
    method: "post",
    path: "/api/account/password",
    summary: "Change the password, given the current one; every other session ends",
    tags: ["account"],
    auth: ["session"],
    body: changePasswordSchema,
    success: {
      status: 200,
      description: "`{ok: true, sessionsEnded}`",
      schema: z.object({ ok: z.literal(true), sessionsEnded: z.number() }),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body, a wrong current password (`wrong_password`, `field`), or no password on the account (`no_password`)",
      ...tooMany("5 wrong passwords in 15 minutes"),
    },
  },
  {
    method: "post",
    path: "/api/account/email",
    summary:
      "Change the email: a link is mailed to the new address, which the account takes once it is opened",
    description:
      "Needs `password` when the account has one. The old address is told when the change takes effect.",
    tags: ["account"],
    auth: ["session"],
    body: changeEmailSchema,
    success: {
      status: 200,
      description: "`{sent: true, email, expiresAt}` (the new address and when its link expires)",
      schema: z.object({ sent: z.literal(true), email: z.string(), expiresAt: z.string() }),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body, the account's own address (`same_email`), a wrong password (`wrong_password`)",
      409: "another account has the address (`email_taken`)",
      ...tooMany("more than 3 change links an hour, or 5 wrong passwords in 15 minutes"),
    },
  },
  {
    method: "get",
    path: "/api/account/email/confirm",
    summary: "The link mailed to the new address; redirects to a page that says what happened",
    tags: ["account"],
    auth: ["none", "session"],
    query: confirmEmailChangeQuery,
    success: {
      status: 302,
      description:
        "to `/dashboard/settings?emailChanged=1` (signed in as the account) or `/login?emailChanged=1`; a bad, used or expired link to `/login?error=EmailChangeFailed`, an address another account took meanwhile to `/login?error=EmailTaken`",
    },
  },
  {
    method: "post",
    path: "/api/auth/forgot-password",
    summary: "Mail a single-use, 1-hour password reset link to the account with this email, if there is one",
    description:
      "Answers the same whether or not an account has the address. At most 3 mails an hour go to one address; further requests are answered alike and mail nothing.",
    tags: ["auth"],
    auth: ["none"],
    body: forgotPasswordSchema,
    success: {
      status: 200,
      description: "`{sent: true}` (always)",
      schema: z.object({ sent: z.literal(true) }),
    },
    errors: {
      ...crossSite,
      400: "bad body (not an email address)",
      ...tooMany("more than 5 requests from one address in 15 minutes"),
    },
  },
  {
    method: "post",
    path: "/api/auth/reset-password",
    summary: "Set a new password with the mailed link's token; every session of the account ends",
    tags: ["auth"],
    auth: ["none"],
    body: resetPasswordSchema,
    // An account claimed by the reset gets new gateway tokens for the agents it took over.
    backendRoutes: ["POST /api/agents/{agentId}/heal-token"],
    success: {
      status: 200,
      description: "`{ok: true}`, and the session cookie cleared",
      schema: ok,
    },
    errors: {
      ...crossSite,
      400: "bad body, or a link that is invalid, used, replaced or expired (`invalid_reset_link`)",
      ...tooMany("more than 10 attempts from one address in 15 minutes"),
    },
  },
  {
    method: "post",
    path: "/api/register",
    summary: "Create an account (no session)",
    tags: ["auth"],
    auth: ["none"],
    body: registerSchema,
    success: {
      status: 201,
      description:
        "`{id, email, name}`; no session, only the `svc-signup` cookie (1 hour, sent to the confirmation link alone) that lets the link sign this browser in",
      schema: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    },
    errors: {
      400: "bad body",
      403: "another site's request, or a browser that looks like a bot",
      409: "the email is taken",
      429: "too many sign-ups from this address",
    },
  },
  {
    method: "post",
    path: "/api/auth/login",
    summary: "Sign in with a password (CSRF header required); sets the session cookie",
    tags: ["auth"],
    auth: ["none"],
    body: loginSchema,
    success: {
      status: 200,
      description: "`{ok: true, user: {id, name}}`",
      schema: z.object({
        ok: z.literal(true),
        user: z.object({ id: z.string(), name: z.string().nullable() }),
      }),
    },
    errors: {
      ...crossSite,
      400: "bad body",
      401: "wrong email or password",
      403: "another site's request, or a bad CSRF token",
      429: "too many",
    },
  },
  {
    method: "get",
    path: "/api/auth/verify-email",
    summary: "The link of the verification mail; redirects to a page that says what happened",
    tags: ["auth"],
    auth: ["none", "session"],
    query: verifyEmailQuery,
    success: redirect(
      "to `/dashboard?verified=1` when the browser is signed in as the account or is the one that signed up (its `svc-signup` cookie: a session is set), else `/login?verified=1`; a bad, used or expired link to `/login?error=VerificationFailed`",
    ),
  },
  {
    method: "post",
    path: "/api/auth/verify-email",
    summary: "Mail the signed-in account a fresh verification link (the earlier links stop working)",
    tags: ["auth"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{sent: true, email}`",
      schema: z.object({ sent: z.literal(true), email: z.string() }),
    },
    errors: { ...session, ...crossSite, 409: "the email is already confirmed", 429: "more than 3 an hour" },
  },
  {
    method: "get",
    path: "/api/trial",
    summary: "The user's trial",
    tags: ["account"],
    auth: ["session", "apiKey"],
    scope: "billing:read",
    success: {
      status: 200,
      description: "`{active, startedAt, endsAt, daysRemaining}`",
      schema: z.object({ active: z.boolean() }).loose(),
    },
    errors: session,
  },
];
