/**
 * Makes the saved pages the summarizer benchmark reads: real-world-shaped HTML (header, navigation,
 * article with headings, paragraphs, lists, links and images, inline scripts and styles, footer) from
 * 50 KB to 2 MB, deterministic (seeded), written to bench/.out/pages/.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PAGE_SIZES_KB = [50, 100, 250, 500, 1000, 2000];
export const pagesDir = fileURLToPath(new URL("./.out/pages", import.meta.url));

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = (
  "the platform agent deploy runtime gateway request approval tool call job queue schedule prompt file wallet " +
  "chain price summary page link image heading paragraph user account session token secure fast reliable " +
  "operator backend service health monitor container process memory network address cache result error retry"
).split(" ");

function makePage(targetBytes: number, seed: number): string {
  const random = rng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const sentence = (min: number, max: number) => {
    const n = min + Math.floor(random() * (max - min));
    const words = Array.from({ length: n }, () => pick(WORDS));
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(" ")}.`;
  };
  const parts: string[] = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>${sentence(4, 9)}</title>`,
    `<meta name="description" content="${sentence(10, 20)}">`,
    `<meta property="og:title" content="${sentence(3, 6)}"><meta property="og:image" content="/og.png">`,
    `<meta name="twitter:card" content="summary_large_image">`,
    `<style>${".c{margin:0;padding:0;color:#333}".repeat(40)}</style>`,
    `<script>window.__STATE__=${JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ i, s: sentence(3, 6) })) })}</script>`,
    "</head><body><header><nav><ul>",
  ];
  for (let i = 0; i < 25; i++) parts.push(`<li><a href="/section/${i}">${sentence(1, 3)}</a></li>`);
  parts.push("</ul></nav></header><main><article>");
  let section = 0;
  while (parts.reduce((n, p) => n + p.length, 0) < targetBytes) {
    section++;
    parts.push(`<h${1 + (section % 3)} id="s${section}">${sentence(3, 8)}</h${1 + (section % 3)}>`);
    for (let p = 0; p < 4; p++) {
      const links = Math.floor(random() * 3);
      let text = sentence(20, 60);
      for (let l = 0; l < links; l++) {
        text += ` <a href="${random() < 0.5 ? "/" : "https://example.com/"}article/${section}-${p}-${l}">${sentence(2, 5)}</a> ${sentence(5, 15)}`;
      }
      parts.push(`<p class="c">${text} <em>${sentence(2, 4)}</em> &amp; ${sentence(4, 10)}</p>`);
    }
    if (section % 3 === 0) {
      parts.push(`<ul>${Array.from({ length: 5 }, () => `<li>${sentence(4, 10)}</li>`).join("")}</ul>`);
    }
    if (section % 4 === 0) {
      parts.push(
        `<figure><img src="/img/${section}.jpg" alt="${sentence(3, 8)}"><figcaption>${sentence(4, 9)}</figcaption></figure>`,
      );
    }
    if (section % 7 === 0) parts.push(`<script>track(${section}, "${sentence(2, 4)}");</script>`);
  }
  parts.push(`</article></main><footer><p>${sentence(6, 12)}</p></footer></body></html>`);
  return parts.join("\n");
}

export interface SavedPage {
  name: string;
  html: Buffer;
}

/** The saved pages, made first when missing. */
export async function loadPages(): Promise<SavedPage[]> {
  await mkdir(pagesDir, { recursive: true });
  for (const [index, kb] of PAGE_SIZES_KB.entries()) {
    const file = join(pagesDir, `page-${kb}kb.html`);
    if (!existsSync(file)) await writeFile(file, makePage(kb * 1024, 1000 + index));
  }
  const names = (await readdir(pagesDir))
    .filter((f) => f.endsWith(".html"))
    .sort((a, b) => parseInt(a.slice(5), 10) - parseInt(b.slice(5), 10));
  return Promise.all(names.map(async (name) => ({ name, html: await readFile(join(pagesDir, name)) })));
}
