/** Shell glob segments matched against names, the way the shell expands them (a leading dot must be written). */

export const GLOB = /[*?[]/;

/** Whether a path segment, possibly a glob, names `name` (compare lower-case text for case-insensitive matching). */
export function matches(segment: string, name: string): boolean {
  if (segment === name) return true;
  if (!GLOB.test(segment)) return false;
  // The shell never matches a leading dot with a wildcard.
  if (name.startsWith(".") && !segment.startsWith(".")) return false;
  return globPattern(segment).test(name);
}

const cache = new Map<string, RegExp>();
const MAX_CACHED = 256;

function globPattern(glob: string): RegExp {
  let pattern = cache.get(glob);
  if (pattern) return pattern;
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") source += ".*";
    else if (c === "?") source += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        const inner = glob
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replaceAll("\\", "\\\\");
        source += `[${inner}]`;
        i = end;
      }
    } else source += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  try {
    pattern = new RegExp(`^${source}$`);
  } catch {
    pattern = /^$/;
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(glob, pattern);
  return pattern;
}
