import { HttpError } from "@svc/common";

/** The scheduled-tasks area's failures, one constructor per code (an unknown agent is health's `agentNotFound`). */
export const taskNotFound = () => new HttpError(404, "task_not_found", "scheduled task not found");
