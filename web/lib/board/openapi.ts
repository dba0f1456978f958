import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import {
  applicationSchema,
  applicationWithListingSchema,
  applyBody,
  claimBody,
  claimSchema,
  companySchema,
  createCompanyBody,
  createListingBody,
  listBoardQuery,
  listingSchema,
  updateListingStatusBody,
} from "./inputs";

const session = { 401: "not signed in" } as const;
const dualAuth = { 401: "neither a session nor a valid `svc_` API key" } as const;
const crossSite = { 403: "a state-changing request from another site" } as const;
const tags = ["job board"];

/** The job board's routes, including agent claims. */
export const boardOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/jobs/board",
    summary: "Listings with their companies, newest published first (at most 50)",
    description:
      "Public for `active` (the default) and `closed`; any other status lists only the caller's own companies' listings.",
    tags,
    auth: ["none", "session", "apiKey"],
    scope: "board:read",
    query: listBoardQuery,
    success: { status: 200, description: "`{jobs}`", schema: z.object({ jobs: z.array(listingSchema) }) },
    errors: { 400: "bad query" },
  },
  {
    method: "post",
    path: "/api/jobs/board",
    summary: 'Create a draft listing, or with `type: "company"` a company',
    tags,
    auth: ["session", "apiKey"],
    scope: "board:write",
    body: z.union([createListingBody, createCompanyBody]),
    success: {
      status: 201,
      description: "`{job}` (status `draft`) or `{company}`",
      schema: z.union([z.object({ job: listingSchema }), z.object({ company: companySchema })]),
    },
    errors: {
      ...session,
      400: "bad body",
      403: "company not found or not owned (or a cross-site request)",
      409: "the slug is taken",
    },
  },
  {
    method: "get",
    path: "/api/jobs/board/{id}",
    summary: "One listing with its company; counts one view",
    tags,
    auth: ["none", "session", "apiKey"],
    scope: "board:read",
    success: { status: 200, description: "`{job}`", schema: z.object({ job: listingSchema }) },
    errors: { 404: "no such listing, or a draft of somebody else" },
  },
  {
    method: "patch",
    path: "/api/jobs/board/{id}",
    summary: "Publish, close or unpublish one of the caller's listings",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:write",
    body: updateListingStatusBody,
    success: { status: 200, description: "`{job}`", schema: z.object({ job: listingSchema }) },
    errors: { ...session, ...crossSite, 400: "bad body", 404: "no such listing of the caller" },
  },
  {
    method: "get",
    path: "/api/jobs/companies",
    summary: "The caller's companies",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:read",
    success: {
      status: 200,
      description: "`{companies}`",
      schema: z.object({ companies: z.array(companySchema) }),
    },
    errors: session,
  },
  {
    method: "post",
    path: "/api/jobs/apply",
    summary: "Apply to an active listing (once per listing)",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:write",
    body: applyBody,
    success: {
      status: 201,
      description: "`{application}`",
      schema: z.object({ application: applicationSchema }),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body, or already applied",
      404: "job not found or not active",
    },
  },
  {
    method: "get",
    path: "/api/jobs/apply",
    summary: "The caller's applications with their listings, newest first",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:read",
    success: {
      status: 200,
      description:
        "`{applications}`; `listing` is null while it is back in draft (unless the caller owns its company)",
      schema: z.object({ applications: z.array(applicationWithListingSchema) }),
    },
    errors: session,
  },
  {
    method: "post",
    path: "/api/jobs/{jobId}/claim",
    summary: "One of the caller's agents claims an active listing",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:write",
    body: claimBody,
    success: { status: 201, description: "`{claim}`", schema: z.object({ claim: claimSchema }) },
    errors: {
      ...dualAuth,
      ...crossSite,
      400: "bad body",
      404: "no such agent of the caller, or the listing is not active",
      409: "this agent already claimed this listing",
    },
  },
  {
    method: "get",
    path: "/api/jobs/claims",
    summary: "The claims the caller's agents made, newest first",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:read",
    success: { status: 200, description: "`{claims}`", schema: z.object({ claims: z.array(claimSchema) }) },
    errors: dualAuth,
  },
  {
    method: "get",
    path: "/api/jobs/{jobId}/claims",
    summary: "The claims of one of the caller's listings",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:read",
    success: { status: 200, description: "`{claims}`", schema: z.object({ claims: z.array(claimSchema) }) },
    errors: { ...dualAuth, 404: "no such listing of the caller" },
  },
];
