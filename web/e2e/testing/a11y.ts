/**
 * The dashboard's accessibility check: axe (WCAG 2 A/AA rules and best practices) on the page as it is,
 * at a desktop width (1280 px) and at 360 px; fails on any serious or critical violation, naming each
 * rule and the elements it found, and on a page or a table wider than its place (a sideways scroll:
 * something cut off or too wide). The page's viewport is restored afterwards. With `E2E_SCREENSHOTS_DIR`
 * set, each page checked is also saved there at both widths (`<test file>-<path>-<n>-<width>.png`).
 */
import { basename, join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { expect } from "vitest";

export const DESKTOP_WIDTH = 1280;
export const NARROW_WIDTH = 360;

const SCREENSHOTS_DIR = process.env.E2E_SCREENSHOTS_DIR;
let checked = 0;

export interface AccessibilityOptions {
  /** CSS selectors axe skips (third-party widgets the page does not own). */
  exclude?: string[];
}

export async function expectAccessible(
  page: Page,
  { exclude = [] }: AccessibilityOptions = {},
): Promise<void> {
  const original = page.viewportSize() ?? { width: DESKTOP_WIDTH, height: 800 };
  const problems: string[] = [];
  const path = new URL(page.url()).pathname.replace(/^\/+|\/+$/g, "").replace(/\W+/g, "-") || "home";
  // Named by the test file too: each file counts from 1, and two files check the same pages.
  const file = basename(expect.getState().testPath ?? "e2e", ".test.ts");
  const name = `${file}-${path}-${++checked}`;
  try {
    for (const width of [DESKTOP_WIDTH, NARROW_WIDTH]) {
      await page.setViewportSize({ width, height: original.height });
      // Layout settles on the next frames after a resize.
      await page.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
      );
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      if (pageWidth > width)
        problems.push(`${width}px: the page is ${pageWidth}px wide (it scrolls sideways)`);
      // A table wider than its card scrolls inside it: its last columns are out of sight.
      const wideTables = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>(".table-wrap")]
          .filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1)
          .map(
            (wrap) => `"${wrap.getAttribute("aria-label")}" (${wrap.scrollWidth}px in ${wrap.clientWidth}px)`,
          ),
      );
      for (const table of wideTables) problems.push(`${width}px: the table ${table} is wider than its place`);
      if (SCREENSHOTS_DIR) {
        // A full-page picture draws the sticky header where the page is scrolled to: taken from the top.
        const at = await page.evaluate(() => {
          const scrolled = [window.scrollX, window.scrollY] as const;
          window.scrollTo({ left: 0, top: 0, behavior: "instant" });
          return scrolled;
        });
        await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-${width}.png`), fullPage: true });
        await page.evaluate(([left, top]) => window.scrollTo({ left, top, behavior: "instant" }), at);
      }
      let builder = new AxeBuilder({ page }).withTags([
        "wcag2a",
        "wcag2aa",
        "wcag21a",
        "wcag21aa",
        "best-practice",
      ]);
      for (const selector of exclude) builder = builder.exclude(selector);
      const result = await builder.analyze();
      for (const violation of result.violations) {
        if (violation.impact !== "serious" && violation.impact !== "critical") continue;
        const targets = violation.nodes.map((node) => node.target.join(" ")).join(", ");
        problems.push(`${width}px ${violation.impact} ${violation.id}: ${violation.help} (${targets})`);
      }
    }
  } finally {
    await page.setViewportSize(original);
  }
  expect(problems, `accessibility problems on ${page.url()}:\n${problems.join("\n")}\n`).toEqual([]);
}
