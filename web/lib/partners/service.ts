import { newId } from "@svc/common";
import { counter } from "@svc/common/metrics/index";
import { type PartnerInquiryType, partnerInquiries } from "@svc/db/schema";
import type { WebContext } from "../infra/context";
import { escapeHtml, sendMail } from "../infra/mail/service";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate } from "../infra/ratelimit/service";
import type { PartnerInquiryInput, PartnerInquiryResult } from "./inputs";

const HOUR_MS = 60 * 60 * 1000;
const FAST_TRACK_TYPES: readonly PartnerInquiryType[] = ["enterprise", "ai_provider"];

/** Fast track exactly when the type is enterprise or ai_provider and a company is given. */
export function isFastTrack(input: Pick<PartnerInquiryInput, "type" | "company">): boolean {
  return FAST_TRACK_TYPES.includes(input.type) && Boolean(input.company);
}

/**
 * `POST /api/partner` (public): counts the request in the client IP's hourly window
 * (`PARTNER_RATE_LIMIT_PER_HOUR`, shared through PostgreSQL; 429 past it), stores the inquiry, and mails
 * `PARTNER_NOTIFY_EMAIL` when set. A failed mail is logged, not reported: the inquiry is stored.
 */
export async function submitPartnerInquiry(
  ctx: WebContext,
  input: PartnerInquiryInput,
  ip: string,
): Promise<PartnerInquiryResult> {
  const limit = await consumeAddressRate(ctx, "partner", ip, {
    points: ctx.config.PARTNER_RATE_LIMIT_PER_HOUR,
    windowMs: HOUR_MS,
  });
  if (!limit.allowed) throw rateLimited("partner inquiries from this address", limit.retryAfterSeconds);
  const fastTrack = isFastTrack(input);
  const [row] = await ctx.db
    .insert(partnerInquiries)
    .values({
      id: newId("ptn"),
      name: input.name,
      email: input.email,
      company: input.company ?? null,
      website: input.website ?? null,
      type: input.type,
      message: input.message,
      fastTrack,
      ip,
      createdAt: ctx.clock.now(),
    })
    .returning({ id: partnerInquiries.id });
  counter<"fast_track">({
    name: "partner_inquiries_total",
    help: "Partner inquiries stored, by fast track (true, false)",
    labelNames: ["fast_track"],
  }).inc({ fast_track: String(fastTrack) });
  const to = ctx.config.PARTNER_NOTIFY_EMAIL;
  if (to) {
    await sendMail(ctx, notificationMail(to, input, fastTrack)).catch((err: unknown) =>
      ctx.logger.error({ err, inquiryId: row.id }, "partner inquiry notification failed"),
    );
  }
  return {
    success: true,
    fastTrack,
    message: fastTrack
      ? "Thank you. Your inquiry is on the fast track: we will reply within one business day."
      : "Thank you. We received your inquiry and will get back to you soon.",
  };
}

/** The notification: plain text, and HTML in which every value the sender typed is escaped. */
function notificationMail(to: string, input: PartnerInquiryInput, fastTrack: boolean) {
  const fields: [string, string | undefined][] = [
    ["Name", input.name],
    ["Email", input.email],
    ["Company", input.company],
    ["Website", input.website],
    ["Type", input.type],
    ["Fast track", fastTrack ? "yes" : "no"],
  ];
  const shown = fields.filter((field): field is [string, string] => field[1] !== undefined);
  const subject = `${fastTrack ? "[fast track] " : ""}Partner inquiry (${input.type})`;
  const text = `${shown.map(([label, value]) => `${label}: ${value}`).join("\n")}\n\n${input.message}\n`;
  const rows = shown.map(
    ([label, value]) => `<tr><th align="left">${label}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  const html = `<h1>Partner inquiry</h1><table>${rows.join("")}</table><p style="white-space: pre-wrap">${escapeHtml(input.message)}</p>`;
  return { to, subject, text, html };
}
