import { HttpError } from "@svc/common";
import type { WebContext } from "../context";
import { type SessionUser, sessionUserOf } from "./service";

/** The signed-in user of a request; 401 without a valid session. */
export async function requireSessionUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  const user = await sessionUserOf(ctx, request);
  if (!user) throw new HttpError(401, "unauthorized", "sign in first");
  return user;
}
