/**
 * Fields in words (./field-names.ts) and the 400 a failed schema becomes (./body.ts `parseWith`): the
 * message names the field as its form does, never by its JSON key, and the error carries the key's path.
 */
import { isHttpError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseWith } from "./body";
import { fieldLabel, wordsOf } from "./field-names";

function refusal(schema: z.ZodType, value: unknown) {
  try {
    parseWith(schema, value);
  } catch (err) {
    if (isHttpError(err)) return { status: err.status, code: err.code, message: err.message, ...err.extra };
    throw err;
  }
  throw new Error("the value was accepted");
}

describe("wordsOf", () => {
  it.each([
    ["name", "Name"],
    ["referralCode", "Referral code"],
    ["rpcUrl", "RPC URL"],
    ["applyUrl", "Apply URL"],
    ["agentId", "Agent"],
    ["id", "ID"],
    ["badgeNoAiScreening", "Badge no AI screening"],
    ["max_tokens", "Max tokens"],
    ["X-Wallet-Address", "X-Wallet-Address"],
  ])("%s → %s", (key, words) => {
    expect(wordsOf(key)).toBe(words);
  });
});

describe("fieldLabel", () => {
  const schema = z.strictObject({
    cronSchedule: z.string().trim().meta({ title: "Schedule" }),
    salaryMin: z.number().int().meta({ title: "Minimum salary" }).optional(),
    currency: z.string().default("USD").meta({ title: "Currency" }),
    techStack: z.array(z.string().max(3)).default([]),
    trimmed: z
      .string()
      .transform((v) => v.trim())
      .pipe(z.string().max(2))
      .meta({ title: "Short" }),
    nested: z.object({ rpcUrl: z.string() }).nullable(),
  });

  it("reads the field's title through optional, default and pipes; else the key in words", () => {
    expect(fieldLabel(schema, ["cronSchedule"])).toBe("Schedule");
    expect(fieldLabel(schema, ["salaryMin"])).toBe("Minimum salary");
    expect(fieldLabel(schema, ["currency"])).toBe("Currency");
    expect(fieldLabel(schema, ["trimmed"])).toBe("Short");
    expect(fieldLabel(schema, ["techStack", 2])).toBe("Tech stack");
    expect(fieldLabel(schema, ["nested", "rpcUrl"])).toBe("Nested RPC URL");
    expect(fieldLabel(schema, ["unknownKey"])).toBe("Unknown key");
  });
});

describe("parseWith's 400", () => {
  it("replaces a key that starts the message with the field's name, and carries the key's path", () => {
    const schema = z.object({
      cronSchedule: z
        .string()
        .refine((v) => v.split(" ").length === 5, "cronSchedule must have 5 fields")
        .meta({ title: "Schedule" }),
    });
    expect(refusal(schema, { cronSchedule: "* *" })).toEqual({
      status: 400,
      code: "invalid_request",
      message: "Schedule must have 5 fields",
      field: "cronSchedule",
    });
  });

  it("puts the field's name before a message that does not name it (`key: …` too)", () => {
    const fragment = z.object({ referralCode: z.string().regex(/^[A-Z]+$/, "must be capital letters") });
    expect(refusal(fragment, { referralCode: "abc" })).toMatchObject({
      message: "Referral code must be capital letters",
      field: "referralCode",
    });
    const prefixed = z.object({ headers: z.string().refine(() => false, "headers: X is not a header name") });
    expect(refusal(prefixed, { headers: "x" })).toMatchObject({ message: "Headers: X is not a header name" });
    const item = z.object({ techStack: z.array(z.string().max(3, "techStack item must be at most 3")) });
    expect(refusal(item, { techStack: ["ok", "toolong"] })).toMatchObject({
      message: "Tech stack item must be at most 3",
      field: "techStack.1",
    });
  });

  it("says zod's own issues in words, with the limit", () => {
    const schema = z.strictObject({
      title: z.string().max(200),
      name: z.string().min(1),
      count: z.number().int().max(5),
      kind: z.enum(["web2", "web3"]),
      email: z.email(),
    });
    const ok = { title: "t", name: "n", count: 1, kind: "web2", email: "a@example.org" };
    expect(refusal(schema, { ...ok, title: "x".repeat(201) })).toMatchObject({
      message: "Title must be at most 200 characters",
      field: "title",
    });
    expect(refusal(schema, { ...ok, name: "" })).toMatchObject({ message: "Name must not be empty" });
    expect(refusal(schema, { ...ok, name: undefined })).toMatchObject({ message: "Name is required" });
    expect(refusal(schema, { ...ok, count: "3" })).toMatchObject({ message: "Count must be a number" });
    expect(refusal(schema, { ...ok, count: 6 })).toMatchObject({ message: "Count must be at most 5" });
    expect(refusal(schema, { ...ok, kind: "web4" })).toMatchObject({
      message: "Kind must be one of web2, web3",
    });
    expect(refusal(schema, { ...ok, email: "nope" })).toMatchObject({
      message: "Email must be an email address",
    });
  });

  it("an issue of the whole body (an unknown field) has no `field`", () => {
    const schema = z.strictObject({ name: z.string() });
    const refused = refusal(schema, { name: "n", owner: "x" });
    expect(refused).toEqual({ status: 400, code: "invalid_request", message: "unknown field: owner" });
  });
});
