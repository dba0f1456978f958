import { HttpError } from "@svc/common";

/** The ai area's failures, one constructor per code. */
export const aiProviderUnconfigured = () =>
  new HttpError(503, "ai_provider_unconfigured", "AI_PROVIDER_KEY is not configured");
export const providerAnsweredWithoutJson = (provider: string) =>
  new HttpError(502, "ai_provider_error", `the AI provider (${provider}) answered without JSON`);
export const providerFailed = (provider: string, status: number) =>
  new HttpError(
    502,
    "ai_provider_error",
    status >= 500
      ? `the AI provider (${provider}) failed with HTTP ${status}`
      : `the AI provider (${provider}) answered with unexpected HTTP ${status}`,
    { providerStatus: status },
  );
/** A 4xx of the provider without a JSON body: its status, and its text in the message. */
export const providerRefused = (provider: string, status: number, text: string) =>
  new HttpError(status, "ai_provider_error", `the AI provider (${provider}) answered ${status}: ${text}`);
export const providerTimeout = (message: string) => new HttpError(504, "ai_provider_timeout", message);
export const providerUnreachable = (message: string) =>
  new HttpError(502, "ai_provider_unreachable", message);
/** The OpenAI-compatible route takes only an agent's gateway token. */
export const unknownGatewayToken = () =>
  new HttpError(401, "invalid_api_key", "the API key is not the gateway token of an agent");
/** Nobody is listening any more; 499 only shows in the request log. */
export const clientClosedRequest = (message: string) => new HttpError(499, "client_closed_request", message);
export const modelNotAllowed = (model: string, plan: string, allowedModels: string[]) =>
  new HttpError(403, "ai_model_not_allowed", `model "${model}" is not allowed on the "${plan}" plan`, {
    model,
    plan,
    allowedModels,
  });

/** 429 with `Retry-After`: `allows` says what the plan allows, `waitMs` until the budget refills. */
function budgetExhausted(code: string) {
  return (allows: string, waitMs: number, limit: number) => {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return new HttpError(429, code, `${allows}; try again in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
      limit,
    });
  };
}
export const tokenBudgetExhausted = budgetExhausted("ai_token_budget_exhausted");
export const requestBudgetExhausted = budgetExhausted("ai_request_budget_exhausted");
