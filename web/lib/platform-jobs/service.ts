/**
 * The user's platform jobs, listed by the backend (`GET {BACKEND_URL}/api/platform-jobs`, internal key and
 * signed user context through the web's one backend client): the backend lists only the user it is told
 * about, and the signature is what makes that the session's user. One job is read by `getUserJob` (chat).
 */
import type { WebContext } from "../infra/context";
import { answerJson, type BackendUser, callBackend } from "../runtime/backend-client";
import { backendAnswered, invalidListQuery, unexpectedBackendAnswer } from "./errors";
import { type JobListQuery, type JobPage, jobPage } from "./inputs";

/** A single indexed query on the backend. */
export const JOB_LIST_TIMEOUT_MS = 10_000;

/** One page of the user's jobs, newest first (`limit` default 20, at most 100). */
export async function listUserJobs(
  ctx: WebContext,
  user: BackendUser,
  query: JobListQuery,
): Promise<JobPage> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const answer = await callBackend(ctx.config, {
    method: "GET",
    path: `/api/platform-jobs${params.size === 0 ? "" : `?${params}`}`,
    user,
    timeoutMs: JOB_LIST_TIMEOUT_MS,
  });
  const json = answerJson(answer);
  if (answer.status === 400) {
    const message = (json as { message?: unknown } | undefined)?.message;
    throw invalidListQuery(typeof message === "string" ? message : undefined);
  }
  if (answer.status < 200 || answer.status > 299) throw backendAnswered(answer.status);
  const page = jobPage.safeParse(json);
  if (!page.success) throw unexpectedBackendAnswer();
  return page.data;
}
