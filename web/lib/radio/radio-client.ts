/**
 * The one client of the radio (streaming) service at RADIO_API_URL: the DJ of a wallet (`/api/djs/me` with
 * `x-wallet-address`), a DJ's stats and the live streams. Every call takes the caller's deadline signal, so
 * one budget covers a whole lookup.
 */
import { createOutboundClient, OutboundError } from "@svc/common";
import { z } from "zod";

export class RadioApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RadioApiError";
  }
}

const client = createOutboundClient({ name: "the radio service", headers: { accept: "application/json" } });

/**
 * A DJ profile. The radio service's shape is inferred, not documented: its avatar has been seen as `avatar`
 * and is read as `avatarUrl` or `avatar_url` too, the first that holds a string.
 */
const djSchema = z
  .object({
    name: z.string(),
    slug: z.string(),
    avatar: z.string().nullish(),
    avatarUrl: z.string().nullish(),
    avatar_url: z.string().nullish(),
    followers: z.number().nullish(),
    genres: z.array(z.string()).nullish(),
  })
  .transform(({ avatarUrl, avatar_url, ...dj }) => ({ ...dj, avatar: dj.avatar ?? avatarUrl ?? avatar_url }));
export type RadioDj = z.infer<typeof djSchema>;
const statsSchema = z.object({
  totalShows: z.number().nullish(),
  totalListeners: z.number().nullish(),
  totalTipsEth: z.number().nullish(),
});
export type RadioDjStats = z.infer<typeof statsSchema>;
const liveSchema = z.array(z.object({ djSlug: z.string().optional(), slug: z.string().optional() }));

async function getJson(
  baseUrl: string,
  path: string,
  options: CallOptions,
  headers: Record<string, string> = {},
) {
  try {
    const answer = await client.request({
      url: `${baseUrl.replace(/\/+$/, "")}${path}`,
      headers,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    return answer;
  } catch (err) {
    if (err instanceof OutboundError) throw new RadioApiError(err.message);
    throw err;
  }
}

interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

/** The DJ profile of `wallet`, or null when the service does not know it. */
export async function fetchDjByWallet(
  baseUrl: string,
  wallet: string,
  options: CallOptions,
): Promise<RadioDj | null> {
  const answer = await getJson(baseUrl, "/api/djs/me", options, { "x-wallet-address": wallet });
  if (answer.status === 404) return null;
  if (!answer.ok) throw new RadioApiError(`the radio service answered HTTP ${answer.status}`);
  const body = answer.json() as { dj?: unknown } | undefined;
  const parsed = djSchema.safeParse(body?.dj ?? body);
  if (!parsed.success) throw new RadioApiError("the radio service's DJ profile has an unexpected shape");
  return parsed.data;
}

export async function fetchDjStats(
  baseUrl: string,
  slug: string,
  options: CallOptions,
): Promise<RadioDjStats> {
  const answer = await getJson(baseUrl, `/api/djs/${encodeURIComponent(slug)}/stats`, options);
  if (!answer.ok)
    throw new RadioApiError(`the radio service answered HTTP ${answer.status} for the DJ's stats`);
  const body = answer.json() as { stats?: unknown } | undefined;
  const parsed = statsSchema.safeParse(body?.stats ?? body);
  if (!parsed.success) throw new RadioApiError("the radio service's stats have an unexpected shape");
  return parsed.data;
}

/** Slugs of the DJs streaming now. */
export async function fetchLiveSlugs(baseUrl: string, options: CallOptions): Promise<Set<string>> {
  const answer = await getJson(baseUrl, "/api/streams/live", options);
  if (!answer.ok)
    throw new RadioApiError(`the radio service answered HTTP ${answer.status} for the live streams`);
  const body = answer.json() as { streams?: unknown } | undefined;
  const parsed = liveSchema.safeParse(body?.streams ?? body);
  if (!parsed.success) throw new RadioApiError("the radio service's live streams have an unexpected shape");
  return new Set(parsed.data.map((s) => s.djSlug ?? s.slug ?? "").filter(Boolean));
}
