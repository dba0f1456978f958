/**
 * The pieces the areas' operation tables (web/lib/<area>/openapi.ts) share. The responses every route
 * answers by rule (a cross-site 403 where no entry names one, 413, the auth refusals) are added by
 * ./shared.ts; these are the ones an entry names itself.
 */
import { z } from "zod";

/** A route that needs a signed-in session (or an API key, where the route takes one). */
export const session = { 401: "not signed in" } as const;
/** The same, in the words of the routes that name both ways in. */
export const dualAuth = { 401: "neither a session nor a valid `svc_` API key" } as const;
/** A state-changing route: refused from another site (../http/origin.ts). */
export const crossSite = { 403: "a state-changing request from another site" } as const;
/** `{ok: true}`. */
export const ok = z.object({ ok: z.literal(true) });
/** A route that answers with a redirect (302), described. */
export const redirect = (description: string) => ({ status: 302, description });
