/**
 * What the summarizer reads from a page. cheerio (its slim entry point, on
 * htmlparser2) parses; one walk over the tree then collects everything, skipping script, style, noscript
 * and template so their content never appears in any field.
 */
import { load } from "cheerio/slim";
import type { AnyNode, Element } from "domhandler";
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

/** The parsed document: the root node of the tree. */
export function parsePage(html: string): AnyNode {
  return load(html).root()[0];
}

interface Collected {
  title?: Element;
  firstH1?: Element;
  body?: Element;
  base?: string;
  headings: Element[];
  paragraphs: Element[];
  anchors: Element[];
  images: Element[];
  meta: Record<string, string>;
}

const HEADINGS = new Set(["h1", "h2", "h3"]);

/** One walk: remembers the elements each field reads, in document order. */
function collect(root: AnyNode): Collected {
  const found: Collected = { headings: [], paragraphs: [], anchors: [], images: [], meta: {} };
  const visit = (node: AnyNode, inSvg: boolean): void => {
    if (node.type !== "tag" && node.type !== "root") return;
    const el = node as Element;
    if (node.type === "tag") {
      const name = el.name;
      if (NON_TEXT.has(name)) return;
      const attrs = el.attribs;
      if (HEADINGS.has(name)) {
        found.headings.push(el);
        if (name === "h1") found.firstH1 ??= el;
      } else if (name === "p") found.paragraphs.push(el);
      else if (name === "a") {
        if (attrs.href !== undefined) found.anchors.push(el);
      } else if (name === "img") {
        if (attrs.src !== undefined) found.images.push(el);
      } else if (name === "meta") readMeta(attrs, found.meta);
      else if (name === "title") {
        if (!inSvg) found.title ??= el;
      } else if (name === "body") found.body ??= el;
      else if (name === "base" && attrs.href !== undefined) found.base ??= attrs.href;
      inSvg ||= name === "svg";
    }
    for (const child of el.children) visit(child, inSvg);
  };
  visit(root, false);
  return found;
}

/** `og:*` and `twitter:*` (by property or name) and `description`; the first of a repeated key wins. */
function readMeta(attrs: Record<string, string>, meta: Record<string, string>): void {
  if (attrs.content === undefined) return;
  const key = (attrs.property ?? attrs.name ?? "").trim().toLowerCase();
  if (!(key.startsWith("og:") || key.startsWith("twitter:") || key === "description")) return;
  if (!(key in meta)) meta[key] = normalizeWhitespace(attrs.content);
}

/** Title (title tag, else the first h1), description, h1-h3 headings, paragraphs, word count. */
export function summarizeDocument(root: AnyNode): PageSummary {
  const found = collect(root);
  const title = (found.title ? textOf(found.title) : "") || (found.firstH1 ? textOf(found.firstH1) : "");
  return {
    title,
    description: found.meta.description ?? found.meta["og:description"] ?? "",
    headings: distinctTexts(found.headings, LIMITS.headings),
    paragraphs: distinctTexts(found.paragraphs, LIMITS.paragraphs),
    wordCount: countWords(found.body ?? root),
  };
}

/** Links (absolute http(s), deduplicated by href), images (absolute http(s)) and og:, twitter: and description meta. */
export function extractDocument(root: AnyNode, pageUrl: URL): PageExtract {
  const found = collect(root);
  const base = baseUrl(found.base, pageUrl);
  const links: PageLink[] = [];
  const seen = new Set<string>();
  for (const el of found.anchors) {
    if (links.length >= LIMITS.links) break;
    const raw = el.attribs.href.trim();
    if (!raw || raw.startsWith("#")) continue;
    const href = absoluteHttpUrl(raw, base);
    if (!href || seen.has(href)) continue;
    seen.add(href);
    const text = textOf(el) || normalizeWhitespace(el.attribs["aria-label"] ?? el.attribs.title ?? "");
    links.push({ href, text: truncate(text, LIMITS.linkText) });
  }
  const images: PageImage[] = [];
  for (const el of found.images) {
    if (images.length >= LIMITS.images) break;
    const src = absoluteHttpUrl(el.attribs.src.trim(), base);
    if (!src) continue;
    images.push({ src, alt: truncate(normalizeWhitespace(el.attribs.alt ?? ""), LIMITS.altText) });
  }
  return { links, images, meta: found.meta };
}

function distinctTexts(elements: Element[], max: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const el of elements) {
    const text = textOf(el);
    if (!text || seen.has(text)) continue;
    seen.add(text);
    out.push(text);
    if (out.length >= max) break;
  }
  return out;
}

function baseUrl(href: string | undefined, pageUrl: URL): URL {
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
