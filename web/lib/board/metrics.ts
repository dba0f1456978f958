/** The job board's metric: what happened on the board, counted by this process. */
import { counter } from "@svc/common/metrics/index";

export type BoardEvent =
  | "company_created"
  | "listing_created"
  | "listing_published"
  | "application"
  | "claim";

/** `job_board_events_total{event}`: companies and listings created, first publications, applications, claims. */
export function countBoardEvent(event: BoardEvent): void {
  counter<"event">({
    name: "job_board_events_total",
    help: "Job board events: company_created, listing_created, listing_published (first time), application, claim",
    labelNames: ["event"],
  }).inc({ event });
}
