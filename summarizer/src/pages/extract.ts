/**
 * What the summarizer reads from a page (spec "Web summarizer"), on htmlparser2 through cheerio's slim
 * entry point. script, style, noscript and template are removed first, so their content never appears.
 */
import { type CheerioAPI, load } from "cheerio/slim";
import type { Element } from "domhandler";
import { countWords, NON_TEXT, normalizeWhitespace, textOf, truncate } from "./text";

export const LIMITS = {
  headings: 20,
  paragraphs: 10,
  links: 50,
  images: 20,
  linkText: 100,
  altText: 100,
} as const;

export interface PageSummary {
  title: string;
  description: string;
  headings: string[];
  paragraphs: string[];
  wordCount: number;
}

export interface PageLink {
  href: string;
  text: string;
}

export interface PageImage {
  src: string;
  alt: string;
}

export interface PageExtract {
  links: PageLink[];
  images: PageImage[];
  meta: Record<string, string>;
}

export function parsePage(html: string): CheerioAPI {
  const $ = load(html);
  $([...NON_TEXT].join(",")).remove();
  return $;
}

/** Title (title tag, else the first h1), description, h1-h3 headings, paragraphs, word count. */
export function summarizeDocument($: CheerioAPI): PageSummary {
  const titleElement = $("title")
    .filter((_, el) => $(el).closest("svg").length === 0)
    .first();
  const h1 = $("h1").first();
  const title = (titleElement.length ? textOf(titleElement[0]) : "") || (h1.length ? textOf(h1[0]) : "");
  const meta = readMeta($);
  const body = $("body");
  const wordCount = countWords(body.length ? textOf(body[0]) : textOf($.root()[0]));
  return {
    title,
    description: meta.description ?? meta["og:description"] ?? "",
    headings: distinctTexts($, "h1, h2, h3", LIMITS.headings),
    paragraphs: distinctTexts($, "p", LIMITS.paragraphs),
    wordCount,
  };
}

/** Links (absolute http(s), deduplicated by href), images (absolute http(s)) and og:, twitter: and description meta. */
export function extractDocument($: CheerioAPI, pageUrl: URL): PageExtract {
  const base = baseUrl($, pageUrl);
  const links: PageLink[] = [];
  const seen = new Set<string>();
  for (const el of $("a[href]").toArray()) {
    if (links.length >= LIMITS.links) break;
    const raw = (el.attribs.href ?? "").trim();
    if (!raw || raw.startsWith("#")) continue;
    const href = absoluteHttpUrl(raw, base);
    if (!href || seen.has(href)) continue;
    seen.add(href);
    const text = textOf(el) || normalizeWhitespace(el.attribs["aria-label"] ?? el.attribs.title ?? "");
    links.push({ href, text: truncate(text, LIMITS.linkText) });
  }
  const images: PageImage[] = [];
  for (const el of $("img[src]").toArray()) {
    if (images.length >= LIMITS.images) break;
    const src = absoluteHttpUrl((el.attribs.src ?? "").trim(), base);
    if (!src) continue;
    images.push({ src, alt: truncate(normalizeWhitespace(el.attribs.alt ?? ""), LIMITS.altText) });
  }
  return { links, images, meta: readMeta($) };
}

/** `og:*` and `twitter:*` (by property or name) and `description`; the first of a repeated key wins. */
function readMeta($: CheerioAPI): Record<string, string> {
  const meta: Record<string, string> = {};
  for (const el of $("meta[content]").toArray() as Element[]) {
    const key = (el.attribs.property ?? el.attribs.name ?? "").trim().toLowerCase();
    if (!(key.startsWith("og:") || key.startsWith("twitter:") || key === "description")) continue;
    if (!(key in meta)) meta[key] = normalizeWhitespace(el.attribs.content ?? "");
  }
  return meta;
}

function distinctTexts($: CheerioAPI, selector: string, max: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const el of $(selector).toArray()) {
    const text = textOf(el);
    if (!text || seen.has(text)) continue;
    seen.add(text);
    out.push(text);
    if (out.length >= max) break;
  }
  return out;
}

function baseUrl($: CheerioAPI, pageUrl: URL): URL {
  const href = $("base[href]").first().attr("href");
  if (!href) return pageUrl;
  try {
    return new URL(href.trim(), pageUrl);
  } catch {
    return pageUrl;
  }
}

function absoluteHttpUrl(raw: string, base: URL): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
