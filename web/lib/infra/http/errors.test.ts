import { HttpError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { toErrorResponse } from "./errors";

describe("toErrorResponse: the web's one error mapper", () => {
  it("answers the web API's shape {error: message, code} with the HttpError's status", async () => {
    const res = toErrorResponse(new HttpError(404, "not_found", "API key not found"));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "API key not found", code: "not_found" });
    expect(res.headers.get("retry-after")).toBeNull();
  });

  it("answers the runtime paths' gateway shape {error: code, message} when asked", async () => {
    const res = toErrorResponse(new HttpError(404, "no_agent", "no agent deployed"), undefined, "gateway");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "no_agent", message: "no agent deployed" });
  });

  it("puts retryAfterSeconds in the Retry-After header too, for every route", async () => {
    const res = toErrorResponse(
      new HttpError(429, "rate_limited", "too many login attempts; try again later", {
        retryAfterSeconds: 42,
      }),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("42");
    expect(await res.json()).toEqual({
      error: "too many login attempts; try again later",
      code: "rate_limited",
      retryAfterSeconds: 42,
    });
  });
});
