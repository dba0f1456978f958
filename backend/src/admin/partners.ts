import type { Database } from "@svc/db";
import { type PartnerInquiryType, partnerInquiries } from "@svc/db/schema";
import { desc } from "drizzle-orm";
import type { AdminListQuery } from "./inputs";

/** A partner inquiry as an admin sees it (the sender's IP stays in the database). */
export interface AdminPartnerInquiry {
  id: string;
  name: string;
  email: string;
  company: string | null;
  website: string | null;
  type: PartnerInquiryType;
  message: string;
  fastTrack: boolean;
  createdAt: string;
}

/** `GET /api/admin/partners`: partner inquiries sent through `POST /api/partner`, newest first. */
export async function listPartnerInquiries(
  deps: { db: Database },
  page: AdminListQuery,
): Promise<{ partners: AdminPartnerInquiry[] }> {
  const rows = await deps.db
    .select({
      id: partnerInquiries.id,
      name: partnerInquiries.name,
      email: partnerInquiries.email,
      company: partnerInquiries.company,
      website: partnerInquiries.website,
      type: partnerInquiries.type,
      message: partnerInquiries.message,
      fastTrack: partnerInquiries.fastTrack,
      createdAt: partnerInquiries.createdAt,
    })
    .from(partnerInquiries)
    .orderBy(desc(partnerInquiries.createdAt), desc(partnerInquiries.id))
    .limit(page.limit)
    .offset(page.offset);
  return { partners: rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })) };
}
