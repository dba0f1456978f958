import { HttpError } from "@svc/common";

/** The sessions area's failure: no signed-in user where one is required (`{error, code: "unauthorized"}`). */
export const signInFirst = () => new HttpError(401, "unauthorized", "sign in first");
