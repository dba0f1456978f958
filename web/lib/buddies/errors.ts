import { HttpError } from "@svc/common";
import { BUDDY_LIMIT, TRAIN_ENERGY_MIN } from "./inputs";

/** The buddies area's failures, one constructor per code. */
export const buddyLimitReached = () =>
  new HttpError(400, "buddy_limit", `you can have at most ${BUDDY_LIMIT} buddies`);
export const tooTiredToTrain = () =>
  new HttpError(400, "too_tired", `training needs at least ${TRAIN_ENERGY_MIN} energy`);
export const buddyNotFound = () => new HttpError(404, "not_found", "buddy not found");
