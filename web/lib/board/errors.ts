import { HttpError } from "@svc/common";

/** The job board's failures, one constructor per code. */
export const companyNotOwned = () =>
  new HttpError(403, "company_not_owned", "company not found or not owned");
export const slugTaken = (slug: string) =>
  new HttpError(409, "slug_taken", `a company with the slug "${slug}" already exists`, { field: "slug" });
export const listingNotFound = () => new HttpError(404, "not_found", "job not found");
export const listingNotActive = () => new HttpError(404, "not_found", "job not found or not active");
export const alreadyApplied = () => new HttpError(400, "already_applied", "already applied");
export const alreadyClaimed = () =>
  new HttpError(409, "already_claimed", "this agent has already claimed this job");
