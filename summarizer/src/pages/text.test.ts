import { load } from "cheerio/slim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWords, normalizeWhitespace, textOf, truncate } from "./text";

describe("text helpers", () => {
  it("countWords equals splitting the visible text on whitespace", () => {
    const fragment = fc.oneof(
      fc.constantFrom(" ", "\n", "\t", "\u00a0", "\u2003", "a", "bc", "déjà", "日本", "&amp;"),
      fc.constantFrom(
        "<b>",
        "</b>",
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<br>",
        "<script>x y</script>",
        "<span>",
        "</span>",
      ),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 40 }), (parts) => {
        const root = load(`<body>${parts.join("")}</body>`).root()[0];
        const text = textOf(root);
        expect(countWords(root)).toBe(text ? text.split(" ").length : 0);
      }),
    );
  });

  it("normalizes whitespace and truncates by code point", () => {
    expect(normalizeWhitespace("  a \n\t b\u00a0c  ")).toBe("a b c");
    expect(truncate("ab😀cd", 3)).toBe("ab😀");
    expect(truncate("short", 100)).toBe("short");
  });
});
