#!/usr/bin/env node
/**
 * A stand-in for the runtime CLI's `devices` commands, for wrapper pairing tests.
 * - FAKE_CLI_LIST_FILE: `devices list --json` prints this file's content as-is.
 * - FAKE_CLI_CALLS_FILE: each call appends its arguments as one JSON line.
 * - FAKE_CLI_FAIL: a subcommand (`list`, `approve`, `reject`) that exits 1 with a message on stderr.
 */
import { appendFileSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
if (process.env.FAKE_CLI_CALLS_FILE)
  appendFileSync(process.env.FAKE_CLI_CALLS_FILE, `${JSON.stringify(args)}\n`);

const [group, verb, id] = args;
if (group !== "devices" || !["list", "approve", "reject"].includes(verb)) {
  process.stderr.write(`unknown command: ${args.join(" ")}\n`);
  process.exit(2);
}
if (process.env.FAKE_CLI_FAIL === verb) {
  process.stderr.write(`fake failure in devices ${verb}\n`);
  process.exit(1);
}
if (verb === "list") {
  process.stdout.write(
    process.env.FAKE_CLI_LIST_FILE ? readFileSync(process.env.FAKE_CLI_LIST_FILE, "utf8") : "[]",
  );
} else {
  process.stdout.write(`${verb === "approve" ? "Approved" : "Rejected"} ${id}\n`);
}
