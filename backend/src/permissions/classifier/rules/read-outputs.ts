/**
 * Reading and text-processing commands with an output-file option or operand (`tree -o`, `iconv -o`,
 * `uniq IN OUT`, …): safe as reads, dangerous when they write a file (issue #12: any output-file flag).
 * `sort -o` lives with sort (basic.ts), the network clients' flags in network.ts, git's in vcs.ts.
 */
import { type OptionSpec, optionSpec, parseArgs } from "../options";
import { register, words } from "../registry";
import { safe } from "../types";
import { classifyWrittenFiles, outputFile } from "../write-target";

interface Reader {
  names: readonly string[];
  rule: "read-only-file" | "text-processing";
  spec: OptionSpec;
  /** Options whose value is a file written. */
  outputs: readonly string[];
  /** The positional operand written (`uniq IN OUT`: 1), if any. */
  outputOperand?: number;
}

function registerReader(reader: Reader): void {
  const label = reader.rule === "read-only-file" ? "read-only file" : "text processing";
  const outputs = new Set(reader.outputs);
  for (const name of reader.names) {
    const plain = Object.freeze(safe(reader.rule, `${label}: ${name}`));
    register([name], (inv) => {
      const parsed = parseArgs(inv.args, reader.spec);
      const targets: string[] = [];
      for (const option of parsed.options) {
        if (outputs.has(option.name) && option.value !== null) targets.push(option.value);
      }
      const operand =
        reader.outputOperand === undefined ? undefined : parsed.positionals[reader.outputOperand];
      if (operand !== undefined) targets.push(operand);
      const how = (target: string) => outputFile(name, target);
      return classifyWrittenFiles(targets, name, how) ?? plain;
    });
  }
}

registerReader({
  names: ["tree"],
  rule: "read-only-file",
  spec: optionSpec("LPIoHT", words("--charset --filelimit --timefmt --sort")),
  outputs: ["-o"],
});
registerReader({
  names: ["less"],
  rule: "read-only-file",
  spec: optionSpec("bhjkoOpPtTxyz#", words("--log-file --LOG-FILE --tag --pattern --prompt --tabs")),
  outputs: ["-o", "-O", "--log-file", "--LOG-FILE"],
});
registerReader({
  names: ["ncdu"],
  rule: "read-only-file",
  spec: optionSpec("oefX", words("--exclude --exclude-from --color")),
  outputs: ["-o"],
});
registerReader({
  names: ["uniq"],
  rule: "text-processing",
  spec: optionSpec("fsw", words("--skip-fields --skip-chars --check-chars --group --all-repeated")),
  outputs: [],
  outputOperand: 1,
});
registerReader({
  names: ["xxd"],
  rule: "text-processing",
  // xxd's options are single-dash words (`-len 16`), some with a value.
  spec: optionSpec("", words("-c -g -l -s -o -n -cols -groupsize -len -seek -offset -name"), {
    singleDashLong: true,
  }),
  outputs: [],
  outputOperand: 1,
});
registerReader({
  names: ["iconv"],
  rule: "text-processing",
  spec: optionSpec("fto", words("--from-code --to-code --output")),
  outputs: ["-o", "--output"],
});
registerReader({
  names: ["xmllint"],
  rule: "text-processing",
  spec: optionSpec("o", words("--output --path --xpath --schema --relaxng --dtdvalid --encode")),
  outputs: ["-o", "--output"],
});
registerReader({
  names: ["sdiff"],
  rule: "text-processing",
  spec: optionSpec("oIw", words("--output --ignore-matching-lines --width --diff-program")),
  outputs: ["-o", "--output"],
});
