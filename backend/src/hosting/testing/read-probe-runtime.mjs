/**
 * A runtime for the local driver's isolation test: as the agent's runtime process (an external runtime,
 * run as given), it first tries to read each path on its command line (a directory is listed) and to write
 * a file in its own state directory,
 * prints one line `read-probe {"uid", "gid", "reads": {path: "ok" | error code}, "ownWrite"}`, then serves
 * as the fake runtime (common/testing/fakes/agent-runtime.mjs).
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

const reads = {};
for (const path of process.argv.slice(2)) {
  try {
    if ((await stat(path)).isDirectory()) await readdir(path);
    else await readFile(path);
    reads[path] = "ok";
  } catch (err) {
    reads[path] = err.code ?? String(err);
  }
}
let ownWrite = "ok";
try {
  await writeFile(
    join(process.env.OPENCLAW_STATE_DIR ?? ".", "probe.txt"),
    `written by ${process.getuid()}\n`,
  );
} catch (err) {
  ownWrite = err.code ?? String(err);
}
console.log(
  `read-probe ${JSON.stringify({ uid: process.getuid(), gid: process.getgid(), reads, ownWrite })}`,
);
const { runFakeRuntimeProcess } = await import("../../../../common/testing/fakes/agent-runtime.mjs");
await runFakeRuntimeProcess();
