import { partnerInquiryTypes } from "@svc/db/schema";
import { z } from "zod";

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

const text = (name: string, max: number) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .trim()
    .min(1, `${name} is required`)
    .max(max, `${name} must be at most ${max} characters`);

/** An optional text field; blank is the same as absent. */
const optionalText = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .max(max, `${name} must be at most ${max} characters`)
    .transform((value) => (value === "" ? undefined : value))
    .optional();

/** `POST /api/partner`: name, email and message required; company, website, type optional. */
export const partnerInquiryBody = z.strictObject(
  {
    name: text("name", 200).meta({ title: "Your name" }),
    email: text("email", 254).pipe(z.email("email is not a valid address")),
    message: text("message", 5000),
    company: optionalText("company", 200),
    website: optionalText("website", 500),
    type: z
      .enum(partnerInquiryTypes, { error: `type must be one of ${partnerInquiryTypes.join(", ")}` })
      .default("general")
      .meta({ title: "Kind of partnership" }),
  },
  unknownKeys,
);
export type PartnerInquiryInput = z.infer<typeof partnerInquiryBody>;

export const partnerInquiryResponse = z
  .object({ success: z.literal(true), fastTrack: z.boolean(), message: z.string() })
  .meta({ id: "PartnerInquiryResult" });
export type PartnerInquiryResult = z.infer<typeof partnerInquiryResponse>;
