// @ts-check
/**
 * A runtime for the local driver's isolation test: as the agent's runtime process (an external runtime,
 * run as given), it first tries to read each path on its command line (a directory is listed), or with
 * `write:<path>` to write there (a new empty file in a directory; a file is opened for writing and closed
 * unchanged), and to write a file in its own state directory,
 * prints one line `read-probe {"uid", "gid", "reads": {argument: "ok" | error code}, "ownWrite"}`, then
 * serves as the fake runtime (common/testing/fakes/agent-runtime.mjs).
 */
import { open, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Linux only (the isolation test runs agents as their own users), where these always exist.
const uid = /** @type {() => number} */ (process.getuid)();
const gid = /** @type {() => number} */ (process.getgid)();

/** @param {unknown} err the failure's code (`EACCES`), else its text */
const failure = (err) => /** @type {NodeJS.ErrnoException} */ (err).code ?? String(err);

/** @param {string} path */
async function tryWrite(path) {
  if ((await stat(path)).isDirectory()) await writeFile(join(path, `write-probe-${uid}`), "", { flag: "wx" });
  else await (await open(path, "r+")).close();
}

/** @type {Record<string, string>} */
const reads = {};
for (const arg of process.argv.slice(2)) {
  try {
    if (arg.startsWith("write:")) await tryWrite(arg.slice("write:".length));
    else if ((await stat(arg)).isDirectory()) await readdir(arg);
    else await readFile(arg);
    reads[arg] = "ok";
  } catch (err) {
    reads[arg] = failure(err);
  }
}
let ownWrite = "ok";
try {
  await writeFile(join(process.env.OPENCLAW_STATE_DIR ?? ".", "probe.txt"), `written by ${uid}\n`);
} catch (err) {
  ownWrite = failure(err);
}
console.log(`read-probe ${JSON.stringify({ uid, gid, reads, ownWrite })}`);
const { runFakeRuntimeProcess } = await import("../../../../common/testing/fakes/agent-runtime.mjs");
await runFakeRuntimeProcess();
