/** Tests of the job board: companies, listings and agents made through the real routes (or rows, for agents). */
import { newId } from "@svc/common";
import { agents } from "@svc/db/schema";
import { expect } from "vitest";
import { PATCH as LISTING_PATCH } from "@/app/api/jobs/board/[id]/route";
import { POST as BOARD_POST } from "@/app/api/jobs/board/route";
import { type CookieJar, makeRequest, webContext } from "../infra/testing";
import type { CompanyView, ListingView } from "./inputs";

export function withParams<P extends Record<string, string>>(params: P) {
  return { params: Promise.resolve(params) };
}

let slugCounter = 0;

export async function createCompanyAs(
  jar: CookieJar,
  fields: Record<string, unknown> = {},
): Promise<CompanyView> {
  slugCounter += 1;
  const res = await BOARD_POST(
    makeRequest({
      method: "POST",
      path: "/api/jobs/board",
      jar,
      json: {
        type: "company",
        name: "Acme",
        slug: `acme-${slugCounter}-${Math.random().toString(36).slice(2, 8)}`,
        website: "https://acme.example",
        ...fields,
      },
    }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { company: CompanyView }).company;
}

export function listingFields(companyId: string, fields: Record<string, unknown> = {}) {
  return {
    companyId,
    title: "Senior TypeScript engineer",
    description: "Build the agent platform.",
    salaryMin: 100_000,
    salaryMax: 150_000,
    roleType: "backend",
    seniority: "senior",
    contractType: "full-time",
    applyUrl: "https://acme.example/jobs/1",
    ...fields,
  };
}

export async function createListingAs(
  jar: CookieJar,
  companyId: string,
  fields: Record<string, unknown> = {},
): Promise<ListingView> {
  const res = await BOARD_POST(
    makeRequest({ method: "POST", path: "/api/jobs/board", jar, json: listingFields(companyId, fields) }),
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { job: ListingView }).job;
}

export async function setStatusAs(jar: CookieJar, id: string, status: string): Promise<Response> {
  return LISTING_PATCH(
    makeRequest({ method: "PATCH", path: `/api/jobs/board/${id}`, jar, json: { status } }),
    withParams({ id }),
  );
}

/** A company of the jar's user with one listing, published (`active`) unless `status` says otherwise. */
export async function publishedListing(
  jar: CookieJar,
  fields: Record<string, unknown> = {},
  status = "active",
): Promise<ListingView> {
  const company = await createCompanyAs(jar);
  const listing = await createListingAs(jar, company.id, fields);
  if (status === "draft") return listing;
  const res = await setStatusAs(jar, listing.id, status);
  expect(res.status).toBe(200);
  return ((await res.json()) as { job: ListingView }).job;
}

/** An agent row of `userId` (what provisioning would have created). */
export async function agentOf(userId: string, name = "worker"): Promise<string> {
  const id = newId("agt");
  await webContext().db.insert(agents).values({ id, userId, name });
  return id;
}
