import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";

const SKIP = new Set(["node_modules", ".next", ".next-build-lock", ".data", "dist", "coverage"]);

/** Hash of every source file the web build depends on (paths, sizes, modification times). */
export async function webSourceFingerprint(root: string): Promise<string> {
  const hash = createHash("sha256");
  const dirs = ["web", "common/src", "drizzle/schema"];
  const files = ["drizzle/client.ts", "package-lock.json", "web/package.json"];
  for (const dir of dirs) await walk(join(root, dir), (file) => files.push(relative(root, file)));
  for (const file of files.sort()) {
    const info = await stat(join(root, file)).catch(() => undefined);
    if (info) hash.update(`${file}\0${info.size}\0${info.mtimeMs}\n`);
  }
  return hash.digest("hex");
}

async function walk(dir: string, onFile: (file: string) => void): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, onFile);
    else if (entry.isFile() && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".test.tsx"))
      onFile(path);
  }
}

/** Builds the web app when it was never built or its sources changed since the last build. */
export async function buildWebIfNeeded(root: string, log: (line: string) => void): Promise<boolean> {
  // One build at a time per checkout (two starts, or tests, may ask at once): mkdir is atomic.
  const lock = join(root, "web", ".next-build-lock");
  for (let waited = 0; ; waited += 500) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const age =
        Date.now() -
        (await stat(lock).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        ));
      if (age > 10 * 60_000) await rm(lock, { recursive: true, force: true });
      if (waited === 0) log("waiting for another build of the web app to finish");
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await buildUnlocked(root, log);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function buildUnlocked(root: string, log: (line: string) => void): Promise<boolean> {
  const marker = join(root, "web", ".next", "svc-source-fingerprint");
  const fingerprint = await webSourceFingerprint(root);
  const built = existsSync(join(root, "web", ".next", "BUILD_ID"));
  if (built && (await readFile(marker, "utf8").catch(() => "")) === fingerprint) return false;
  log(built ? "web sources changed: rebuilding the web app" : "building the web app (first start only)");
  await run(
    process.execPath,
    [join(root, "node_modules", "next", "dist", "bin", "next"), "build"],
    join(root, "web"),
    log,
  );
  await writeFile(marker, fingerprint);
  return true;
}

function run(command: string, args: string[], cwd: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const collect = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else {
        log(tail.trim());
        reject(new Error(`web build failed (exit ${code}); its output is above`));
      }
    });
  });
}
