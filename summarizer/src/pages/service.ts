import { type Clock, HttpError, type OutboundClient, OutboundError, systemClock } from "@svc/common";
import { SUMMARIZER_PRODUCT, SUMMARIZER_VERSION } from "../version";
import { decodeHtml } from "./charset";
import { extractDocument, type PageExtract, type PageSummary, parsePage, summarizeDocument } from "./extract";

export interface PageDeps {
  client: OutboundClient;
  maxBytes: number;
  timeoutMs: number;
  /** Stamps `fetchedAt` (default: the system clock). */
  clock?: Clock;
}

/** A fixed product-token User-Agent with version 1.0, so sites can tell the summarizer's requests. */
export const USER_AGENT = `${SUMMARIZER_PRODUCT}/${SUMMARIZER_VERSION.split(".").slice(0, 2).join(".")}`;
export const MAX_REDIRECTS = 5;
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** Filled in by the service for the `Server-Timing` header: time spent fetching and extracting. */
export interface PageTimings {
  fetchMs?: number;
  extractMs?: number;
}

const clockMs = () => Number(process.hrtime.bigint()) / 1e6;

export type SummarizeResult = { url: string } & PageSummary & { fetchedAt: string };
export type ExtractResult = { url: string } & PageExtract & { fetchedAt: string };

/** `POST /api/summarize`: `{url, title, description, headings, paragraphs, wordCount, fetchedAt}`. */
export async function summarizeUrl(
  rawUrl: string,
  deps: PageDeps,
  timings: PageTimings = {},
): Promise<SummarizeResult> {
  const page = await fetchHtml(rawUrl, deps, timings);
  const started = clockMs();
  const summary = summarizeDocument(parsePage(page.html));
  timings.extractMs = clockMs() - started;
  return { url: page.url, ...summary, fetchedAt: page.fetchedAt };
}

/** `POST /api/extract`: `{url, links, images, meta, fetchedAt}`. */
export async function extractUrl(
  rawUrl: string,
  deps: PageDeps,
  timings: PageTimings = {},
): Promise<ExtractResult> {
  const page = await fetchHtml(rawUrl, deps, timings);
  const started = clockMs();
  const extract = extractDocument(parsePage(page.html), page.finalUrl);
  timings.extractMs = clockMs() - started;
  return { url: page.url, ...extract, fetchedAt: page.fetchedAt };
}

/** The URL the caller gave, parsed; 400 when it is malformed or not http(s). */
export function parsePageUrl(rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new HttpError(400, "invalid_url", `url is not a valid URL: ${rawUrl.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HttpError(
      400,
      "invalid_url",
      `only http and https URLs are supported (got ${url.protocol.slice(0, -1)})`,
    );
  }
  return url;
}

interface FetchedPage {
  url: string;
  finalUrl: URL;
  html: string;
  fetchedAt: string;
}

async function fetchHtml(rawUrl: string, deps: PageDeps, timings: PageTimings): Promise<FetchedPage> {
  const url = parsePageUrl(rawUrl);
  const started = clockMs();
  try {
    const res = await deps.client.open({
      url,
      timeoutMs: deps.timeoutMs,
      maxRedirects: MAX_REDIRECTS,
      headers: { "user-agent": USER_AGENT, accept: "text/html, application/xhtml+xml" },
    });
    if (res.status < 200 || res.status > 299) {
      res.discard();
      throw new HttpError(
        500,
        "upstream_status",
        `the page answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`,
      );
    }
    const contentType = res.headers["content-type"];
    const mime = (contentType ?? "text/html").split(";")[0].trim().toLowerCase();
    if (!HTML_TYPES.has(mime)) {
      res.discard();
      throw new HttpError(500, "not_html", `the page is ${mime}, not text/html or application/xhtml+xml`);
    }
    const body = await res.readBody(deps.maxBytes);
    const html = decodeHtml(body, contentType);
    timings.fetchMs = clockMs() - started;
    return {
      url: url.toString(),
      finalUrl: res.url,
      html,
      fetchedAt: (deps.clock ?? systemClock).now().toISOString(),
    };
  } catch (err) {
    throw toHttpError(err, deps);
  }
}

function toHttpError(err: unknown, deps: PageDeps): unknown {
  if (!(err instanceof OutboundError)) return err;
  switch (err.reason) {
    case "refused":
      return new HttpError(400, "url_refused", err.message);
    case "too_large":
      return new HttpError(
        500,
        "page_too_large",
        `the page is larger than the ${err.maxBytes}-byte limit; it was cut off there (SUMMARIZER_MAX_BYTES=${deps.maxBytes})`,
      );
    case "timeout":
      return new HttpError(500, "fetch_timeout", `fetching the page ${err.detail}`);
    case "too_many_redirects":
      return new HttpError(500, "fetch_failed", err.detail);
    default:
      return new HttpError(500, "fetch_failed", `could not fetch the page: ${err.detail}`);
  }
}
