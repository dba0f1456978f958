/**
 * Fields in words, as forms name them: an error about `cronSchedule` says "Schedule", never the JSON key.
 * A schema gives the name where the form's label differs from the key in words (`.meta({ title })`);
 * otherwise the key is put in words (`referralCode` → "Referral code", `rpcUrl` → "RPC URL").
 */
import { globalRegistry, type z } from "zod";

const ACRONYMS = new Set(["ai", "api", "evm", "id", "ip", "jwt", "mcp", "mpp", "rpc", "sol", "url", "usd"]);

/**
 * A JSON key in words: camelCase split, acronyms upper-cased, a trailing `Id` dropped (`agentId` → "Agent");
 * a header's name stays as it is.
 */
export function wordsOf(key: string): string {
  // A header's name (`X-Wallet-Address`) is its own name.
  if (/^[A-Z][A-Za-z0-9]*(-[A-Za-z0-9]+)+$/.test(key)) return key;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .split(/\s+/)
    .map((word) => word.toLowerCase());
  if (words.length > 1 && words.at(-1) === "id") words.pop();
  const text = words.map((word) => (ACRONYMS.has(word) ? word.toUpperCase() : word)).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The zod internals the walk below reads (zod 4's `_zod.def`). */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
}
const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
const titleOf = (schema: z.ZodType): string | undefined => {
  const title = globalRegistry.get(schema)?.title;
  return typeof title === "string" ? title : undefined;
};

/** The schema of one key inside `schema` (through optional, nullable, default, pipes), or undefined. */
function childOf(schema: z.ZodType, key: PropertyKey): { child?: z.ZodType; title?: string } {
  let node: z.ZodType | undefined = schema;
  for (let depth = 0; node && depth < 20; depth++) {
    const def = defOf(node);
    if (def.type === "object") return { child: def.shape?.[String(key)] };
    if (def.type === "array") return { child: def.element };
    if (def.type === "record") return { child: def.valueType };
    node = def.innerType ?? def.in;
  }
  return {};
}

/** The first title on the way from `schema` down its wrappers (optional, nullable, default, pipes). */
function ownTitle(schema: z.ZodType): string | undefined {
  let node: z.ZodType | undefined = schema;
  for (let depth = 0; node && depth < 20; depth++) {
    const title = titleOf(node);
    if (title) return title;
    const def = defOf(node);
    node = def.innerType ?? def.in;
  }
  return undefined;
}

/** "ID" stays "ID", "Name" becomes "name": a word that follows another. */
const following = (words: string) =>
  /^[A-Z][A-Z]/.test(words) ? words : words.charAt(0).toLowerCase() + words.slice(1);

/**
 * The name of the field at `path` of `schema` as its form shows it: the field's `title`, else its key in
 * words after its parent's name (`response.id` → "Response ID"); an item of a list is its list's name
 * (`techStack.2` → "Tech stack").
 */
export function fieldLabel(schema: z.ZodType, path: readonly PropertyKey[]): string {
  let node: z.ZodType | undefined = schema;
  let label = "";
  for (const key of path) {
    const child: z.ZodType | undefined = node ? childOf(node, key).child : undefined;
    const title = child ? ownTitle(child) : undefined;
    if (title) label = title;
    else if (typeof key === "string") label = label ? `${label} ${following(wordsOf(key))}` : wordsOf(key);
    node = child;
  }
  return label;
}
