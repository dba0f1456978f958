/**
 * What docs/routes.md reads from the web's source text without running it: the modules a file imports
 * (its import closure) and the string literals a module holds. Enough of TypeScript's lexing to tell code
 * from comments, strings, templates and regular expressions; no types, no call graph.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ScannedModule {
  /** The source without its comments (strings kept). */
  code: string;
  /** Every string and template literal; a template's `${…}` is `\0`. */
  literals: string[];
  /** Module specifiers of the imports and re-exports whose bindings are values (not `import type`). */
  valueImports: string[];
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^"]);

export function scanSource(source: string): ScannedModule {
  let code = "";
  const literals: string[] = [];
  let i = 0;

  const lastSignificant = (): string => {
    const trimmed = code.trimEnd();
    const word = /[A-Za-z_$][\w$]*$/.exec(trimmed)?.[0];
    if (word)
      return ["return", "typeof", "await", "yield", "case", "in", "of", "void"].includes(word) ? "(" : "a";
    return trimmed.at(-1) ?? "(";
  };

  const readQuoted = (quote: string): void => {
    const start = i;
    let text = "";
    i++;
    while (i < source.length && source[i] !== quote) {
      if (source[i] === "\\") {
        text += source[i + 1];
        i += 2;
      } else text += source[i++];
    }
    i++;
    literals.push(text);
    code += source.slice(start, i);
  };

  const readTemplate = (): void => {
    let text = "";
    code += "`";
    i++;
    while (i < source.length && source[i] !== "`") {
      if (source[i] === "\\") {
        text += source[i + 1];
        code += source.slice(i, i + 2);
        i += 2;
      } else if (source[i] === "$" && source[i + 1] === "{") {
        text += "\0";
        code += "${";
        i += 2;
        readCode(true);
        code += "}";
        i++;
      } else {
        text += source[i];
        code += source[i++];
      }
    }
    code += "`";
    i++;
    literals.push(text);
  };

  const readRegex = (): void => {
    const start = i;
    let inClass = false;
    i++;
    while (i < source.length && (inClass || source[i] !== "/") && source[i] !== "\n") {
      if (source[i] === "\\") i++;
      else if (source[i] === "[") inClass = true;
      else if (source[i] === "]") inClass = false;
      i++;
    }
    i++;
    while (/[a-z]/.test(source[i] ?? "")) i++;
    code += source.slice(start, i);
  };

  /** Code up to the end, or (inside a template's `${`) up to its closing brace, left unread. */
  const readCode = (untilBrace: boolean): void => {
    let depth = 0;
    while (i < source.length) {
      const c = source[i];
      const next = source[i + 1];
      if (c === "/" && next === "/") {
        while (i < source.length && source[i] !== "\n") i++;
      } else if (c === "/" && next === "*") {
        const end = source.indexOf("*/", i + 2);
        i = end === -1 ? source.length : end + 2;
        code += " ";
      } else if (c === '"' || c === "'") readQuoted(c);
      else if (c === "`") readTemplate();
      else if (c === "/" && BEFORE_REGEX.has(lastSignificant())) readRegex();
      else {
        if (c === "{") depth++;
        else if (c === "}") {
          if (untilBrace && depth === 0) return;
          depth--;
        }
        code += c;
        i++;
      }
    }
  };

  readCode(false);
  return { code, literals, valueImports: valueImportsOf(code) };
}

const IMPORT =
  /\b(?:import|export)\s+(type\s+)?([\w\s{},*$]*?)\s*from\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\bimport\s+["']([^"']+)["']/g;

function valueImportsOf(code: string): string[] {
  const specs: string[] = [];
  for (const [, typeOnly, clause, from, dynamic, bare] of code.matchAll(IMPORT)) {
    if (typeOnly) continue;
    if (clause !== undefined) {
      const named = /\{([^}]*)\}/.exec(clause);
      const rest = clause.replace(/\{[^}]*\}/, "").replace(/[\s,]/g, "");
      const names =
        named?.[1]
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean) ?? [];
      if (named && rest === "" && names.every((n) => n.startsWith("type "))) continue;
    }
    specs.push(from ?? dynamic ?? bare);
  }
  return specs;
}

const scanned = new Map<string, ScannedModule>();

/** The file's scan, read once. */
export function scanFile(file: string): ScannedModule {
  let known = scanned.get(file);
  if (!known) {
    known = scanSource(readFileSync(file, "utf8"));
    scanned.set(file, known);
  }
  return known;
}

/**
 * The file a specifier names from `from`: relative, or `@/…` below `webRoot` (the web's alias); another
 * package's (`@svc/common`, `zod`) is none.
 */
export function resolveSpecifier(from: string, spec: string, webRoot: string): string | undefined {
  let base: string;
  if (spec.startsWith("@/")) base = join(webRoot, spec.slice(2));
  else if (spec.startsWith(".")) base = resolve(dirname(from), spec);
  else return undefined;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((c) => /\.tsx?$/.test(c) && existsSync(c));
}

/** The file and every module it reaches through value imports, inside this repository's sources. */
export function importClosure(file: string, webRoot: string): Set<string> {
  const seen = new Set<string>();
  const pending = [file];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    for (const spec of scanFile(next).valueImports) {
      const target = resolveSpecifier(next, spec, webRoot);
      if (target) pending.push(target);
    }
  }
  return seen;
}

/**
 * A literal as a pattern of the paths it can be: `${…}` stands for one path segment or part of one
 * (`/api/agents/${id}/${op}` is `/api/agents/{agentId}/start`); a leading `${…}` is a base URL and dropped.
 * Undefined when the literal is not a path.
 */
export function pathPattern(literal: string): RegExp | undefined {
  const text = literal.replace(/^\0+/, "");
  if (!/^\/[A-Za-z]/.test(text)) return undefined;
  const pattern = text
    .split("\0")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^/?]*");
  return new RegExp(`^${pattern}$`);
}
