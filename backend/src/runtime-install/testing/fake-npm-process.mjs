// @ts-check
/**
 * A fake `npm` for the installer's tests, first on PATH (fake-npm.ts imports nothing of this file): it writes
 * the registry packages' layout without the network. `node-linux-<arch>@22` gets a `bin/node` that answers
 * `--version` with $FAKE_NODE_VERSION (v22.14.0) and otherwise runs this machine's node with FAKE_NODE22=1;
 * `openclaw@<v>` gets an entry that runs the one fake agent runtime for `gateway …`, accepts every
 * configuration for `config validate`, and prints `{}` otherwise. Installing openclaw with another Node first
 * on PATH fails as an engine error, as OpenClaw under Node 20 would. Knobs: FAKE_NPM_LOG (a JSON line per
 * call), FAKE_NPM_FAIL=<package> (+ FAKE_NPM_FAIL_OUTPUT), FAKE_NPM_HOLD=<file> (waits for it before
 * finishing openclaw), FAKE_NPM_UMASK=<octal> (as an operator's npm `umask` would).
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
const args = process.argv.slice(2);
const env = process.env;
if (env.FAKE_NPM_UMASK) process.umask(Number.parseInt(env.FAKE_NPM_UMASK, 8));

/**
 * @param {string} output
 * @returns {never}
 */
function fail(output) {
  process.stderr.write(output.endsWith("\n") ? output : `${output}\n`);
  process.exit(1);
}

if (args[0] !== "install") fail(`npm error fake npm knows only install, not ${args[0]}`);
const prefixAt = args.indexOf("--prefix");
const prefix = prefixAt >= 0 ? args[prefixAt + 1] : null;
if (!prefix) fail("npm error fake npm needs --prefix");
const packages = args.filter((arg, i) => i > 0 && !arg.startsWith("-") && i !== prefixAt + 1);
if (env.FAKE_NPM_LOG)
  appendFileSync(env.FAKE_NPM_LOG, `${JSON.stringify({ packages, prefix, path: env.PATH ?? "" })}\n`);

for (const spec of packages) {
  const name = spec.replace(/@[^@/]*$/, "");
  const version = spec.slice(name.length + 1);
  const dir = join(prefix, "node_modules", name);
  mkdirSync(dir, { recursive: true });
  if (env.FAKE_NPM_FAIL === name) {
    writeFileSync(join(dir, "package.json"), "{");
    fail(
      env.FAKE_NPM_FAIL_OUTPUT ?? `npm error code E500\nnpm error 500 Internal Server Error - GET ${spec}`,
    );
  }
  if (/^node-linux-(x64|arm64)$/.test(name)) {
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(
      join(dir, "bin/node"),
      [
        "#!/bin/sh",
        `if [ "$1" = "--version" ]; then echo "${env.FAKE_NODE_VERSION ?? "v22.14.0"}"; exit 0; fi`,
        `FAKE_NODE22=1 exec "${process.execPath}" "$@"`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "22.14.0" }));
  } else if (name === "openclaw") {
    const first = (env.PATH ?? "").split(":")[0];
    if (!/node_modules\/node-linux-(x64|arm64)\/bin$/.test(first))
      fail(
        `npm error code EBADENGINE\nnpm error engine Unsupported engine: openclaw@${version} wants node >=22.14.0 (PATH starts with ${first})`,
      );
    if (env.FAKE_NPM_HOLD) while (!existsSync(env.FAKE_NPM_HOLD)) await sleep(20);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name, version, bin: { openclaw: "openclaw.mjs" }, engines: { node: ">=22.14.0" } }),
    );
    writeFileSync(
      join(dir, "openclaw.mjs"),
      [
        "#!/usr/bin/env node",
        "// The fake OpenClaw entry written by the runtime installer's fake npm.",
        `const fake = await import(${JSON.stringify(FAKE_RUNTIME)});`,
        "const args = process.argv.slice(2);",
        "process.env.FAKE_OPENCLAW_ARGV = JSON.stringify(args);",
        'process.env.FAKE_OPENCLAW_NODE22 = process.env.FAKE_NODE22 ?? "";',
        // A wrapper runs it as OpenClaw: the least of its RPC, and a configuration it always accepts.
        'if (args[0] === "gateway") await fake.runFakeRuntimeProcess({ ...process.env, FAKE_OPENCLAW_RPC: "1" });',
        'else if (args[0] === "config" && args[1] === "validate") process.stdout.write(JSON.stringify({ valid: true }) + "\\n");',
        'else process.stdout.write("{}\\n");',
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
  } else {
    fail(`npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/${name} - Not found`);
  }
}
process.stdout.write(`added ${packages.length} packages\n`);
