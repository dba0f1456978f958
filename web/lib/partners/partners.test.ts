import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { partnerInquiries, partnerInquiryTypes } from "@svc/db/schema";
import { desc, eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/partner/route";
import { makeRequest, useWebTestContext, webContext } from "../infra/testing";

const dataDir = await mkdtemp(join(tmpdir(), "svc-partners-"));
const { clock } = useWebTestContext({
  DATA_DIR: dataDir,
  PARTNER_NOTIFY_EMAIL: "partners@platform.example",
  PARTNER_RATE_LIMIT_PER_HOUR: "3",
});
const db = () => webContext().db;
afterEach(() => rm(join(dataDir, "mail"), { recursive: true, force: true }));

let ipCounter = 0;
/** Each call from its own address unless one is given, so the per-IP window only bites where meant. */
async function send(
  json: unknown,
  ip = `198.51.100.${++ipCounter}`,
  extra: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await POST(makeRequest({ method: "POST", path: "/api/partner", json, ip, ...extra }));
  return { status: res.status, headers: res.headers, body: await res.json() };
}
async function total() {
  const result = await db().execute<{ n: number }>(sql`select count(*)::int as n from partner_inquiries`);
  return result.rows[0].n;
}
async function mails(): Promise<string[]> {
  const dir = join(dataDir, "mail");
  const names = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(names.map((name) => readFile(join(dir, name), "utf8")));
}
const base = { name: "Grace", email: "grace@corp.example", message: "We would like to integrate." };

describe("POST /api/partner", () => {
  it("stores the inquiry with type general by default: {success, fastTrack: false, message}", async () => {
    const { status, body } = await send({ ...base, website: "https://corp.example" }, "192.0.2.10");
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      fastTrack: false,
      message: "Thank you. We received your inquiry and will get back to you soon.",
    });
    const [row] = await db()
      .select()
      .from(partnerInquiries)
      .orderBy(desc(partnerInquiries.createdAt))
      .limit(1);
    expect(row).toMatchObject({
      id: expect.stringMatching(/^ptn_/),
      name: "Grace",
      email: "grace@corp.example",
      company: null,
      website: "https://corp.example",
      type: "general",
      message: "We would like to integrate.",
      fastTrack: false,
      ip: "192.0.2.10",
    });
    expect(row.createdAt.toISOString()).toBe(clock.now().toISOString());
  });

  it("fast track exactly for enterprise or ai_provider with a company", async () => {
    for (const type of partnerInquiryTypes) {
      for (const company of [undefined, "", "Corp Inc"]) {
        const { status, body } = await send({ ...base, type, ...(company === undefined ? {} : { company }) });
        expect(status).toBe(200);
        const expected = (type === "enterprise" || type === "ai_provider") && company === "Corp Inc";
        expect({ type, company, fastTrack: body.fastTrack }).toEqual({ type, company, fastTrack: expected });
        if (expected) expect(body.message).toContain("fast track");
      }
    }
    expect(await db().$count(partnerInquiries, eq(partnerInquiries.fastTrack, true))).toBe(2);
  });

  it("mails PARTNER_NOTIFY_EMAIL with every value the sender typed HTML-escaped", async () => {
    const evil = {
      name: `<script>alert("x")</script>`,
      email: "eve@corp.example",
      company: `Eve & Sons <b>`,
      website: `https://corp.example/"onmouseover="x`,
      type: "enterprise",
      message: `<img src=x onerror='steal()'>`,
    };
    expect((await send(evil)).body.fastTrack).toBe(true);
    const [mail] = await mails();
    expect(mail).toContain("To: partners@platform.example");
    expect(mail).toContain("Subject: [fast track] Partner inquiry (enterprise)");
    const html = mail.slice(mail.indexOf("Content-Type: text/html"));
    expect(html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;");
    expect(html).toContain("Eve &#38; Sons &#60;b&#62;");
    expect(html).toContain("https://corp.example/&#34;onmouseover=&#34;x");
    expect(html).toContain("&#60;img src=x onerror=&#39;steal()&#39;&#62;");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>");
  });

  it("over PARTNER_RATE_LIMIT_PER_HOUR from one IP → 429 with Retry-After, nothing stored; other IPs unaffected; the next hour opens again", async () => {
    const ip = "203.0.113.99";
    for (let i = 0; i < 3; i++) expect((await send(base, ip)).status).toBe(200);
    const before = await total();
    const limited = await send(base, ip);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: "rate_limited", retryAfterSeconds: 3600 });
    expect(limited.headers.get("retry-after")).toBe("3600");
    expect(await total()).toBe(before);
    expect((await send(base)).status).toBe(200);
    clock.advance(60 * 60 * 1000);
    expect((await send(base, ip)).status).toBe(200);
  });

  it("bad input → 400 naming the field, nothing stored and no mail", async () => {
    const before = await total();
    for (const [json, message] of [
      [{ email: base.email, message: base.message }, "Your name is required"],
      [{ name: "G", message: base.message }, "Email is required"],
      [{ name: "G", email: base.email }, "Message is required"],
      [{ ...base, name: "   " }, "Your name is required"],
      [{ ...base, email: "not-an-email" }, "Email is not a valid address"],
      [{ ...base, type: "partnership" }, "Kind of partnership must be one of general, ai_provider"],
      [{ ...base, company: 5 }, "Company must be a string"],
      [{ ...base, message: "m".repeat(5001) }, "Message must be at most 5000"],
      [{ ...base, phone: "555" }, "unknown field: phone"],
    ] as const) {
      const { status, body } = await send(json);
      expect(status).toBe(400);
      expect(body.error).toContain(message);
    }
    const headers = { "content-type": "application/json" };
    expect((await send(undefined, undefined, { body: "{no", headers })).status).toBe(400);
    const huge = JSON.stringify({ ...base, message: "x".repeat(100 * 1024) });
    expect((await send(undefined, undefined, { body: huge, headers })).status).toBe(413);
    expect(await total()).toBe(before);
    expect(await mails()).toEqual([]);
  });
});
