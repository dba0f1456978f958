import { describe, expect, it } from "vitest";
import { ApiError } from "../data/api";
import { FormError, failureOf } from "./use-action";

const refusal = (message: string, field?: string, status = 400) =>
  new ApiError(status, "bad_request", message, undefined, field ? { error: message, field } : {});

describe("failureOf: where a form shows a failure", () => {
  it("puts the server's error under the field its body names, when the form has that field", () => {
    const fields = ["title", "techStack"] as const;
    expect(failureOf(refusal("Title is required", "title"), { fields })).toEqual({
      message: "Title is required",
      field: "title",
    });
    // A JSON path inside a field is that field's.
    expect(failureOf(refusal("Tech stack item must be text", "techStack.2"), { fields })).toEqual({
      message: "Tech stack item must be text",
      field: "techStack",
    });
    // A field the form does not have, or none: the form's own error line.
    expect(failureOf(refusal("Slug is taken", "slug"), { fields })).toEqual({ message: "Slug is taken" });
    expect(failureOf(refusal("too many listings"), { fields })).toEqual({ message: "too many listings" });
    expect(failureOf(refusal("Title is required", "title"))).toEqual({ message: "Title is required" });
  });

  it("asks a function for the field when the form finds it itself", () => {
    expect(failureOf(refusal("not a URL"), { fields: () => "rpcUrl" })).toEqual({
      message: "not a URL",
      field: "rpcUrl",
    });
    expect(failureOf(new Error("offline"), { fields: () => undefined })).toEqual({ message: "offline" });
  });

  it("shows the page's own refusal (FormError) as it is, under its field if it names one", () => {
    const options = { fields: ["name"] as const, message: (err: unknown) => `The call failed: ${err}` };
    expect(failureOf(new FormError("Choose a file to upload.", "file"), options)).toEqual({
      message: "Choose a file to upload.",
      field: "file",
    });
    expect(failureOf(new FormError("Choose at least one dimension."), options)).toEqual({
      message: "Choose at least one dimension.",
    });
  });

  it("words other failures with `message`, else as messageOf does (a 429 says when to try again)", () => {
    const message = (err: unknown) => `The call failed: ${err instanceof Error ? err.message : err}`;
    expect(failureOf(refusal("no such library"), { message })).toEqual({
      message: "The call failed: no such library",
    });
    const limited = new ApiError(429, "rate_limited", "too many requests", 12);
    expect(failureOf(limited)).toEqual({ message: "too many requests (try again in 12 s)" });
    expect(failureOf("plain")).toEqual({ message: "plain" });
  });
});
