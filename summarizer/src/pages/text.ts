import type { AnyNode, Element } from "domhandler";

/**
 * Elements whose boundaries separate words ("<p>a</p><p>b</p>" is two words, "a<b>b</b>" one). Inline
 * elements join their text as a browser would.
 */
const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
  "option",
  "select",
  "textarea",
  "button",
  "img",
  "input",
  "body",
  "head",
  "html",
  "title",
]);

/** Content that is never text: removed before anything is read. */
export const NON_TEXT = new Set(["script", "style", "noscript", "template"]);

/** Collapses every run of whitespace (NBSP included) to one space and trims. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Walks the visible text of a node in order: `text` for each text node, `boundary` around block elements. */
function walkVisible(node: AnyNode, text: (data: string) => void, boundary: () => void): void {
  if (node.type === "text") {
    text(node.data);
    return;
  }
  if (node.type !== "tag" && node.type !== "root") return;
  const element = node as Element;
  const name = node.type === "tag" ? element.name : "";
  if (NON_TEXT.has(name)) return;
  const block = BLOCK.has(name);
  if (block) boundary();
  for (const child of element.children) walkVisible(child, text, boundary);
  if (block) boundary();
}

/** Visible text of a node, whitespace-normalized, skipping script, style, noscript and template. */
export function textOf(node: AnyNode): string {
  const parts: string[] = [];
  walkVisible(
    node,
    (data) => parts.push(data),
    () => parts.push(" "),
  );
  return normalizeWhitespace(parts.join(""));
}

/** Cuts to `max` characters (code points, so an emoji is never split). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join("");
}

const ASCII_SPACE = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[c] = 1;
const UNICODE_SPACE = /\s/;

function isSpace(code: number): boolean {
  return code < 128 ? ASCII_SPACE[code] === 1 : UNICODE_SPACE.test(String.fromCharCode(code));
}

/**
 * Words of a node's visible text, counted while walking it (no copy of the text is built): the same
 * count as splitting `textOf(node)` on whitespace.
 */
export function countWords(node: AnyNode): number {
  let words = 0;
  let inWord = false;
  walkVisible(
    node,
    (data) => {
      for (let i = 0; i < data.length; i++) {
        if (isSpace(data.charCodeAt(i))) inWord = false;
        else if (!inWord) {
          inWord = true;
          words++;
        }
      }
    },
    () => {
      inWord = false;
    },
  );
  return words;
}
