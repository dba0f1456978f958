import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, ok, session } from "../infra/openapi/responses";
import { authOptionsBody, authVerifyBody, passkeyIdParam, registerVerifyBody } from "./inputs";

/** Passkeys: registering one, signing in with one, the user's list. */
export const passkeysOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/passkey/register/options",
    summary: "Options for `navigator.credentials.create`",
    tags: ["passkeys"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{options, challenge}`",
      schema: z.object({ options: jsonObject, challenge: z.string() }),
    },
    errors: { ...session, ...crossSite },
  },
  {
    method: "post",
    path: "/api/passkey/register/verify",
    summary: "Store the new passkey",
    tags: ["passkeys"],
    auth: ["session"],
    body: registerVerifyBody,
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 400: "bad body or a failed verification" },
  },
  {
    method: "post",
    path: "/api/passkey/auth/options",
    summary: "Options for `navigator.credentials.get`",
    tags: ["passkeys"],
    auth: ["none"],
    body: authOptionsBody,
    success: { status: 200, description: "`{options, challenge}`", schema: jsonObject },
    errors: {
      ...crossSite,
      400: "bad body",
      404: "no account with a passkey for this identifier",
      429: "too many",
    },
  },
  {
    method: "post",
    path: "/api/passkey/auth/verify",
    summary: "Sign in with a passkey; sets the session cookie",
    tags: ["passkeys"],
    auth: ["none"],
    body: authVerifyBody,
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: {
      ...crossSite,
      400: "bad body",
      401: "the assertion does not verify",
      404: "the passkey is not recognized (`passkey_not_found`)",
    },
  },
  {
    method: "get",
    path: "/api/passkeys",
    summary: "The user's passkeys",
    tags: ["passkeys"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{passkeys}`",
      schema: z.object({ passkeys: z.array(jsonObject) }),
    },
    errors: session,
  },
  {
    method: "delete",
    path: "/api/passkeys/{id}",
    summary: "Remove one of the user's passkeys",
    tags: ["passkeys"],
    auth: ["session"],
    params: z.object({ id: passkeyIdParam }),
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 404: "no such passkey of this user" },
  },
];
