/**
 * Command-line option scanning for the rules: short clusters (`-rf`, `-XPOST`), long options with `=` or a
 * separate value, `--` ending options. Specs are built once at module load (`optionSpec`).
 */

export interface OptionSpec {
  /** Short option letters that take a value (the rest of the cluster, else the next argument). */
  shortWithValue: ReadonlySet<string>;
  /** Long options (`--name`) that take the next argument as value when not written `--name=value`. */
  longWithValue: ReadonlySet<string>;
  /** Options end at the first positional argument (wrappers: the command starts there). */
  stopAtPositional: boolean;
  /** Single-dash words are whole options (`-exec`, `-name`), not clusters. */
  singleDashLong: boolean;
}

export function optionSpec(
  shortWithValue = "",
  longWithValue: readonly string[] = [],
  flags: { stopAtPositional?: boolean; singleDashLong?: boolean } = {},
): OptionSpec {
  return {
    shortWithValue: new Set(shortWithValue),
    longWithValue: new Set(longWithValue),
    stopAtPositional: flags.stopAtPositional ?? false,
    singleDashLong: flags.singleDashLong ?? false,
  };
}

export interface ParsedOption {
  /** With dashes: `-X`, `--request`. */
  name: string;
  value: string | null;
}

export interface ParsedArgs {
  options: ParsedOption[];
  positionals: string[];
  /** With `stopAtPositional`: the arguments from the first positional on (the wrapped command). */
  rest: string[];
}

export function parseArgs(args: readonly string[], spec: OptionSpec): ParsedArgs {
  const options: ParsedOption[] = [];
  const positionals: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      i++;
      break;
    }
    if (arg.length < 2 || arg[0] !== "-") {
      if (spec.stopAtPositional) break;
      positionals.push(arg);
      continue;
    }
    if (arg[1] === "-" || spec.singleDashLong) {
      const eq = arg.indexOf("=");
      if (eq > 0) options.push({ name: arg.slice(0, eq), value: arg.slice(eq + 1) });
      else if (spec.longWithValue.has(arg) && i + 1 < args.length)
        options.push({ name: arg, value: args[++i] });
      else options.push({ name: arg, value: null });
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j];
      if (!spec.shortWithValue.has(letter)) {
        options.push({ name: `-${letter}`, value: null });
        continue;
      }
      if (j + 1 < arg.length) options.push({ name: `-${letter}`, value: arg.slice(j + 1) });
      else options.push({ name: `-${letter}`, value: i + 1 < args.length ? args[++i] : null });
      break;
    }
  }
  const rest = args.slice(i);
  if (!spec.stopAtPositional) positionals.push(...rest);
  return { options, positionals, rest };
}

export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  for (const option of parsed.options) if (names.includes(option.name)) return true;
  return false;
}

export function optionValues(parsed: ParsedArgs, ...names: string[]): string[] {
  const values: string[] = [];
  for (const option of parsed.options) {
    if (option.value !== null && names.includes(option.name)) values.push(option.value);
  }
  return values;
}

/** The first argument that is not an option, skipping the values of options in `spec`. */
export function firstPositional(
  args: readonly string[],
  spec: OptionSpec,
): { index: number; word: string } | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return i + 1 < args.length ? { index: i + 1, word: args[i + 1] } : null;
    if (arg.length < 2 || arg[0] !== "-") return { index: i, word: arg };
    if (arg[1] === "-" || spec.singleDashLong) {
      if (!arg.includes("=") && spec.longWithValue.has(arg)) i++;
      continue;
    }
    const last = arg[arg.length - 1];
    if (spec.shortWithValue.has(last)) {
      // The value is the next argument only when the valued letter ends the cluster.
      let valued = false;
      for (let j = 1; j < arg.length; j++) {
        if (spec.shortWithValue.has(arg[j])) {
          valued = j === arg.length - 1;
          break;
        }
      }
      if (valued) i++;
    }
  }
  return null;
}
