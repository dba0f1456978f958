import { z } from "zod";

/** Most listings one `GET /api/jobs/board` answers. */
export const BOARD_LIST_MAX = 50;

export const listingStatuses = ["draft", "active", "closed"] as const;
export type ListingStatus = (typeof listingStatuses)[number];
/** Statuses anybody may list and read; every other status is its company owner's alone. */
export const PUBLIC_STATUSES: readonly string[] = ["active", "closed"];
export const webTypes = ["web2", "web3", "both"] as const;

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

const required = (name: string, kind: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? `${name} is required` : `${name} must be ${kind}`,
});

/** A trimmed string of 1 to `max` characters. */
const text = (name: string, max: number) =>
  z
    .string(required(name, "a string"))
    .trim()
    .min(1, `${name} must not be empty`)
    .max(max, `${name} must be at most ${max} characters`);

const httpUrl = (name: string) =>
  text(name, 2000).refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `${name} must be an http(s) URL`);

const positiveInt = (name: string) =>
  z
    .number(required(name, "a number"))
    .int(`${name} must be a whole number`)
    .positive(`${name} must be positive`)
    .max(1_000_000_000, `${name} is too large`);

const flag = (name: string) => z.boolean(required(name, "true or false")).default(false);

/** `POST /api/jobs/board` (a listing): created as `draft`; defaults as the listing table's. */
export const createListingBody = z
  .strictObject(
    {
      type: z.literal("listing", { error: 'type must be "listing" or "company"' }).optional(),
      companyId: text("companyId", 100).meta({ title: "Company" }),
      title: text("title", 200),
      description: text("description", 20_000),
      salaryMin: positiveInt("salaryMin").meta({ title: "Minimum salary" }),
      salaryMax: positiveInt("salaryMax").meta({ title: "Maximum salary" }),
      salaryCurrency: z
        .string(required("salaryCurrency", "a string"))
        .regex(/^[A-Z]{3}$/, "salaryCurrency must be three capital letters like USD")
        .default("USD")
        .meta({ title: "Currency" }),
      roleType: text("roleType", 50),
      techStack: z
        .array(text("techStack item", 50), required("techStack", "an array of strings"))
        .max(30, "techStack has at most 30 items")
        .default([]),
      seniority: text("seniority", 50),
      contractType: text("contractType", 50),
      webType: z.enum(webTypes, required("webType", "web2, web3 or both")).default("both"),
      applyUrl: httpUrl("applyUrl"),
      language: text("language", 10).default("en"),
      languagePtBr: text("languagePtBr", 20_000).nullable().default(null),
      badgeResponseGuaranteed: flag("badgeResponseGuaranteed"),
      badgeNoAiScreening: flag("badgeNoAiScreening"),
    },
    unknownKeys,
  )
  .refine((body) => body.salaryMin <= body.salaryMax, {
    message: "must not exceed the maximum salary",
    path: ["salaryMin"],
  });
export type CreateListingInput = z.infer<typeof createListingBody>;

/** `POST /api/jobs/board` with `type: "company"`: a company owned by the caller. */
export const createCompanyBody = z.strictObject(
  {
    type: z.literal("company"),
    name: text("name", 200).meta({ title: "Company name" }),
    slug: z
      .string(required("slug", "a string"))
      .min(1, "slug must not be empty")
      .max(100, "slug must be at most 100 characters")
      .regex(/^[a-z0-9-]+$/, "slug may hold only lowercase letters, digits and hyphens"),
    website: httpUrl("website"),
    logoUrl: httpUrl("logoUrl").nullable().default(null),
    description: text("description", 5000).nullable().default(null),
    githubOrg: z
      .string(required("githubOrg", "a string"))
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "githubOrg must be an organization name")
      .nullable()
      .default(null)
      .meta({ title: "GitHub organization" }),
  },
  unknownKeys,
);
export type CreateCompanyInput = z.infer<typeof createCompanyBody>;

/** What decides which of the two `POST /api/jobs/board` bodies a request is. */
export const boardPostKind = z.looseObject({
  type: z.enum(["listing", "company"], { error: 'type must be "listing" or "company"' }).optional(),
});

/** `GET /api/jobs/board` query; an empty parameter is the same as none. */
const queryText = (name: string, max: number, refine: (text: z.ZodString) => z.ZodString = (text) => text) =>
  refine(
    z
      .string({ error: `${name} must be given once` })
      .trim()
      .max(max, `${name} must be at most ${max} characters`),
  )
    .transform((value) => (value === "" ? undefined : value))
    .optional();

export const listBoardQuery = z.strictObject(
  {
    /** Default `active`; with `mine`, every status. */
    status: queryText("status", 20),
    /** `true`: only listings of the caller's own companies (the dashboard's "your listings"). */
    mine: z
      .enum(["true", "false", ""], { error: "mine must be true or false" })
      .transform((value) => value === "true")
      .optional(),
    roleType: queryText("roleType", 50),
    seniority: queryText("seniority", 50),
    webType: z
      .enum([...webTypes, ""], { error: "webType must be web2, web3 or both" })
      .transform((value) => (value === "" ? undefined : value))
      .optional(),
    // No control characters: `search_text` joins title and description with a line break, which a term
    // must not be able to match across.
    search: queryText("search", 200, (text) =>
      // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
      text.regex(/^[^\u0000-\u001f\u007f]*$/, "search must not contain control characters"),
    ),
  },
  unknownKeys,
);
export type ListBoardQuery = z.infer<typeof listBoardQuery>;

/** `PATCH /api/jobs/board/{id}`: publish, close or move back to draft. */
export const updateListingStatusBody = z.strictObject(
  { status: z.enum(listingStatuses, required("status", "draft, active or closed")) },
  unknownKeys,
);

/** `POST /api/jobs/apply`. */
export const applyBody = z.strictObject({ listingId: text("listingId", 100) }, unknownKeys);

/** `POST /api/jobs/{jobId}/claim`. */
export const claimBody = z.strictObject(
  { claimerAgentId: text("claimerAgentId", 100).meta({ title: "Agent" }) },
  unknownKeys,
);

// Response shapes (the API document and the dashboard's row types).
export const companySchema = z
  .object({
    id: z.string(),
    advertiserId: z.string().nullable(),
    name: z.string(),
    slug: z.string(),
    logoUrl: z.string().nullable(),
    website: z.string(),
    description: z.string().nullable(),
    githubOrg: z.string().nullable(),
    hiredCount: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Company" });
export type CompanyView = z.infer<typeof companySchema>;

export const listingSchema = z
  .object({
    id: z.string(),
    companyId: z.string(),
    title: z.string(),
    description: z.string(),
    salaryMin: z.number(),
    salaryMax: z.number(),
    salaryCurrency: z.string(),
    roleType: z.string(),
    techStack: z.array(z.string()),
    seniority: z.string(),
    contractType: z.string(),
    webType: z.enum(webTypes),
    applyUrl: z.string(),
    language: z.string(),
    languagePtBr: z.string().nullable(),
    status: z.string(),
    tier: z.string(),
    viewCount: z.number(),
    applyCount: z.number(),
    badgeResponseGuaranteed: z.boolean(),
    badgeNoAiScreening: z.boolean(),
    publishedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    company: companySchema,
  })
  .meta({ id: "JobListing" });
export type ListingView = z.infer<typeof listingSchema>;

export const applicationSchema = z
  .object({
    id: z.string(),
    listingId: z.string(),
    userId: z.string(),
    hasProfile: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: "Application" });
export type ApplicationView = z.infer<typeof applicationSchema>;
/** `listing` is null while the listing is a draft of somebody else's company (drafts are their owner's alone). */
export const applicationWithListingSchema = applicationSchema
  .extend({ listing: listingSchema.nullable() })
  .meta({ id: "ApplicationWithListing" });
export type ApplicationWithListingView = z.infer<typeof applicationWithListingSchema>;

export const claimSchema = z
  .object({
    id: z.string(),
    jobId: z.string(),
    claimerAgentId: z.string(),
    /** The name its owner gave the agent; null once the agent is deleted. */
    claimerAgentName: z.string().nullable(),
    /** Null when the claimer deleted their account (the board shows "deleted user"). */
    userId: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "JobClaim" });
export type ClaimView = z.infer<typeof claimSchema>;
