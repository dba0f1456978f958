/**
 * sed: text processing, unless its script runs a command (`e`, `s///e`), writes a file (`w`, `W`,
 * `s///w`), or reads one its arguments do not name (`r`, `R`); `-i` edits files in place, `-f` reads the
 * script from a file. The script is parsed the way GNU sed reads it (addresses, then one command letter and
 * its arguments), so `1e cmd`, `$e cmd` and `/x/w file` are found wherever they stand; a script this parser
 * cannot read is not known to be harmless.
 */
import { optionSpec, parseArgs } from "../options";
import { register } from "../registry";
import { type Classification, dangerous, safe } from "../types";
import { editedInPlace } from "../write-target";

export type SedRisk = "runs a command" | "writes a file" | "reads a file" | "cannot be read";

/** Commands without arguments (some take a number). */
const PLAIN_COMMANDS = new Set("=dDgGhHlnNpPxzFqQL".split(""));

/** What makes `script` more than text processing, or null. */
export function sedScriptRisk(script: string): SedRisk | null {
  const parser = new SedParser(script);
  try {
    return parser.run();
  } catch {
    return "cannot be read";
  }
}

class Unreadable extends Error {}

class SedParser {
  private i = 0;

  constructor(private readonly s: string) {}

  run(): SedRisk | null {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ";" || c === "\n" || c === " " || c === "\t" || c === "}" || c === "{") {
        this.i++;
        continue;
      }
      if (c === "#") {
        this.toLineEnd();
        continue;
      }
      this.address(false);
      this.blanks();
      if (s[this.i] === ",") {
        this.i++;
        this.blanks();
        this.address(true);
        this.blanks();
      }
      while (s[this.i] === "!") {
        this.i++;
        this.blanks();
      }
      const command = s[this.i++];
      if (command === undefined) throw new Unreadable();
      const risk = this.command(command);
      if (risk !== null) return risk;
    }
    return null;
  }

  private command(command: string): SedRisk | null {
    switch (command) {
      case "{":
      case "}":
        return null;
      case "e":
        return "runs a command";
      case "w":
      case "W":
        return "writes a file";
      case "r":
      case "R":
        return "reads a file";
      case "s":
        return this.substitution();
      case "y": {
        const delimiter = this.delimiter();
        this.until(delimiter, false);
        this.until(delimiter, false);
        return null;
      }
      case "a":
      case "i":
      case "c":
        this.toLineEnd();
        return null;
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        // A label (or version) runs to the end of the line or a `;`.
        while (this.i < this.s.length && this.s[this.i] !== "\n" && this.s[this.i] !== ";") this.i++;
        return null;
      default:
        if (!PLAIN_COMMANDS.has(command)) throw new Unreadable();
        this.blanks();
        while (this.i < this.s.length && this.s[this.i] >= "0" && this.s[this.i] <= "9") this.i++;
        return null;
    }
  }

  /** `s/regex/replacement/flags`: the `e` flag runs the pattern space, `w FILE` writes it. */
  private substitution(): SedRisk | null {
    const delimiter = this.delimiter();
    this.until(delimiter, true);
    this.until(delimiter, false);
    while (this.i < this.s.length) {
      const flag = this.s[this.i];
      if (flag === "e") return "runs a command";
      if (flag === "w") return "writes a file";
      if (!/[gpiImM0-9]/.test(flag)) break;
      this.i++;
    }
    return null;
  }

  /** An address: a line number (`first~step`), `$`, `/regex/` or `\cregexc` with flags; `+N`/`~N` second. */
  private address(second: boolean): void {
    const s = this.s;
    const c = s[this.i];
    if (c >= "0" && c <= "9") {
      this.digits();
      if (s[this.i] === "~") {
        this.i++;
        this.digits();
      }
    } else if (c === "$") this.i++;
    else if (c === "/" || c === "\\") {
      if (c === "\\") this.i++;
      const delimiter = this.delimiter();
      this.until(delimiter, true);
      while (s[this.i] === "I" || s[this.i] === "M") this.i++;
    } else if (second && (c === "+" || c === "~")) {
      this.i++;
      this.digits();
    } else if (second) throw new Unreadable();
  }

  private delimiter(): string {
    const delimiter = this.s[this.i++];
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new Unreadable();
    return delimiter;
  }

  /** Up to and past the unescaped `delimiter`; a regex's bracket expressions may hold it literally. */
  private until(delimiter: string, regex: boolean): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === "\\") {
        this.i += 2;
        continue;
      }
      if (c === delimiter) {
        this.i++;
        return;
      }
      if (c === "\n" && delimiter !== "\n") throw new Unreadable();
      if (regex && c === "[") {
        this.bracket();
        continue;
      }
      this.i++;
    }
    throw new Unreadable();
  }

  /** `[…]`, `[^…]`, `[]…]`, with `[:class:]`, `[=x=]`, `[.x.]` inside. */
  private bracket(): void {
    const s = this.s;
    let j = this.i + 1;
    if (s[j] === "^") j++;
    if (s[j] === "]") j++;
    while (j < s.length && s[j] !== "]") {
      if (s[j] === "[" && (s[j + 1] === ":" || s[j + 1] === "=" || s[j + 1] === ".")) {
        const end = s.indexOf(`${s[j + 1]}]`, j + 2);
        if (end < 0) throw new Unreadable();
        j = end + 2;
      } else j++;
    }
    if (j >= s.length) throw new Unreadable();
    this.i = j + 1;
  }

  private digits(): void {
    while (this.i < this.s.length && this.s[this.i] >= "0" && this.s[this.i] <= "9") this.i++;
  }

  private blanks(): void {
    while (this.s[this.i] === " " || this.s[this.i] === "\t") this.i++;
  }

  /** To the end of the line; a backslash continues it (`a\`, `i\`, `c\` text). */
  private toLineEnd(): void {
    const s = this.s;
    while (this.i < s.length && s[this.i] !== "\n") this.i += s[this.i] === "\\" ? 2 : 1;
  }
}

const sedSpec = optionSpec("efl", ["--expression", "--file", "--line-length"]);
register(["sed", "gsed"], (inv) => {
  const parsed = parseArgs(inv.args, sedSpec);
  let inPlace = false;
  const scripts: string[] = [];
  for (const option of parsed.options) {
    if (option.name === "-i" || option.name.startsWith("--in-place")) inPlace = true;
    else if ((option.name === "-e" || option.name === "--expression") && option.value !== null)
      scripts.push(option.value);
    else if (option.name === "-f" || option.name === "--file")
      return dangerous("code-execution", "code execution: sed -f script");
  }
  const files = scripts.length > 0 ? parsed.positionals : parsed.positionals.slice(1);
  if (scripts.length === 0 && parsed.positionals[0] !== undefined) scripts.push(parsed.positionals[0]);
  // GNU sed joins `-e` scripts with newlines: one script.
  const risk = sedScriptRisk(scripts.join("\n"));
  if (risk !== null) return sedVerdict(inv.name, risk);
  if (!inPlace) return safe("text-processing", `text processing: ${inv.name}`);
  return editedInPlace(`${inv.name} -i`, files);
});

function sedVerdict(name: string, risk: SedRisk): Classification {
  switch (risk) {
    case "runs a command":
      return dangerous("code-execution", `code execution: ${name} e command`);
    case "writes a file":
      return dangerous("output-file", `output file: ${name} w command`);
    case "reads a file":
      return dangerous("unknown-option", `${name} r command: reads a file its arguments do not name`);
    default:
      return dangerous("unknown-option", `${name} script not known to be harmless`);
  }
}
