/**
 * File upload and download through the web server beside a plain node:http server, in the same run:
 * - the web: the built Next app (web/server.ts, production mode, local storage) on an embedded PostgreSQL;
 *   `POST /api/files` with a 200 MB multipart body (busboy → disk), then `GET /api/files?download=<id>`;
 * - the anchor: a node:http server in its own process that pipes the same multipart body straight to a
 *   file on the same disk (no parsing, no database) and streams the file back.
 * Each round sends the same bytes from this process to both, alternating which goes first; the figures are
 * the median round. During the web's upload the web process's RSS is sampled every 20 ms (/proc), and its
 * growth over the RSS just before the upload is reported (goal: under 64 MB), as is the growth during the
 * download. Wall-clock throughput on a shared machine swings with the disk's write-back and the other
 * tenants, so the CPU time each server process spent on the transfer (/proc/<pid>/stat, utime + stime) is
 * reported too: the steadier measure of what the web's code costs beside plain piping.
 * Knobs: BENCH_MB (default 200), BENCH_ROUNDS (default 5), BENCH_STORAGE=s3 (the web stores into a loopback
 * s3rver instead of its local directory; the anchor still writes to disk).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort, randomId, SESSION_COOKIE, sha256Hex } from "../common/src/index";
import { startFakeS3 } from "../common/testing/fakes/s3";
import { migrateDatabase } from "../drizzle/migrate";
import { startWebServer } from "../web/e2e/testing/browser";
import { startBenchPostgres } from "./lib/postgres";

const MB = Number(process.env.BENCH_MB ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SIZE = MB * 1024 * 1024;
const BOUNDARY = "----svc-bench-boundary-5c2a";
const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mibPerS = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

const work = await mkdtemp(join(tmpdir(), "svc-bench-files-"));
const source = join(work, "source.bin");
{
  // The same random bytes for both servers.
  const out = createWriteStream(source);
  for (let written = 0; written < SIZE; written += 1024 * 1024) {
    if (!out.write(randomBytes(Math.min(1024 * 1024, SIZE - written)))) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

const { cluster, stop: stopPostgres } = await startBenchPostgres("files");
const databaseUrl = cluster.url();
await migrateDatabase(databaseUrl);
const token = randomId(43);
{
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await db.query(
    "insert into users (id, email, name, referral_code) values ('usr_bench', 'bench@example.com', 'bench', 'BENCHREF')",
  );
  await db.query(
    "insert into sessions (id, token_hash, user_id, expires_at) values ('ses_bench', $1, 'usr_bench', now() + interval '1 day')",
    [sha256Hex(token)],
  );
  await db.query("insert into agents (id, user_id, name) values ('agt_bench', 'usr_bench', 'bench')");
  await db.end();
}

const s3 = process.env.BENCH_STORAGE === "s3" ? await startFakeS3("bench-files") : undefined;
const web = await startWebServer({
  DATABASE_URL: databaseUrl,
  SESSION_SECRET: "bench-session-secret-0123456789abcdef",
  DATA_DIR: join(work, "web-data"),
  FILES_DIR: join(work, "web-files"),
  ...s3?.env,
  FILE_MAX_BYTES: String(SIZE + 1024 * 1024),
  FILE_QUOTA_MB: String(MB * 2),
  LOG_LEVEL: "warn",
});
const webUrl = new URL(web.url);

// The anchor: a plain node:http server in its own process, piping the body to disk and the file back.
const anchorPort = await freePort();
const anchorFile = join(work, "anchor.bin");
const anchor: ChildProcess = spawn(
  process.execPath,
  [
    "-e",
    `
    const http = require("node:http");
    const fs = require("node:fs");
    const file = ${JSON.stringify(anchorFile)};
    http.createServer((req, res) => {
      if (req.method === "POST") {
        const out = fs.createWriteStream(file);
        req.pipe(out);
        out.on("finish", () => { res.writeHead(201, { "content-type": "application/json" }); res.end('{"ok":true}'); });
      } else {
        const { size } = fs.statSync(file);
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
        fs.createReadStream(file).pipe(res);
      }
    }).listen(${anchorPort}, "127.0.0.1", () => process.stdout.write("ready\\n"));
    `,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await once(anchor.stdout as NodeJS.ReadableStream, "data");

const head = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="agentId"\r\n\r\nagt_bench\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\n",
);
const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** Sends the multipart body (head, the source file streamed, tail); resolves with the answer's body and ms. */
function upload(port: number, path: string): Promise<{ ms: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = now();
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
          "content-length": head.length + SIZE + tail.length,
          cookie: `${SESSION_COOKIE}=${token}`,
          origin: web.url,
        },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
        });
        res.on("end", () => resolve({ ms: now() - started, status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.write(head);
    const file = createReadStream(source, { highWaterMark: 256 * 1024 });
    file.pipe(req, { end: false });
    file.on("end", () => req.end(tail));
  });
}

/** Reads the whole answer, counting bytes; resolves with ms and bytes. */
function download(port: number, path: string): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = now();
    http
      .get({ host: "127.0.0.1", port, path, headers: { cookie: `${SESSION_COOKIE}=${token}` } }, (res) => {
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
        });
        res.on("end", () => resolve({ ms: now() - started, bytes, status: res.statusCode ?? 0 }));
      })
      .on("error", reject);
  });
}

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Samples the web process's RSS every 20 ms while `work` runs; growth = peak − the reading before. */
async function withRss<T>(work: () => Promise<T>): Promise<{ result: T; growth: number; before: number }> {
  const before = await rssBytes(web.pid);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssBytes(web.pid));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await work();
  sampling = false;
  await sampler;
  peak = Math.max(peak, await rssBytes(web.pid));
  return { result, growth: peak - before, before };
}

/** CPU ms (user + system) the process has used so far (clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `work`'s result and the CPU ms `pid` spent meanwhile. */
async function withCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpu: number }> {
  const before = await cpuMs(pid);
  const result = await work();
  return { result, cpu: (await cpuMs(pid)) - before };
}

interface Round {
  webUpCpu: number;
  webDownCpu: number;
  anchorUpCpu: number;
  anchorDownCpu: number;
  webUp: number;
  webDown: number;
  anchorUp: number;
  anchorDown: number;
  rssUp: number;
  rssDown: number;
  rssBefore: number;
}
const rounds: Round[] = [];

// One warm-up upload through the web (Next compiles nothing at run time, but the first request opens the
// database pool and loads the route's modules).
{
  const warm = await upload(Number(webUrl.port), "/api/files");
  if (warm.status !== 201) throw new Error(`warm-up upload failed: ${warm.status} ${warm.body}`);
  const { file } = JSON.parse(warm.body) as { file: { id: string } };
  await fetch(`${web.url}/api/files`, {
    method: "DELETE",
    headers: { cookie: `${SESSION_COOKIE}=${token}`, "content-type": "application/json", origin: web.url },
    body: JSON.stringify({ fileId: file.id }),
  });
}

for (let round = 0; round < ROUNDS; round++) {
  const r: Partial<Round> = {};
  const runAnchor = async () => {
    const anchorPid = anchor.pid as number;
    const { result: up, cpu: upCpu } = await withCpu(anchorPid, () => upload(anchorPort, "/"));
    if (up.status !== 201) throw new Error(`anchor upload failed: ${up.status}`);
    if ((await stat(anchorFile)).size !== head.length + SIZE + tail.length)
      throw new Error("anchor stored a different size");
    const { result: down, cpu: downCpu } = await withCpu(anchorPid, () => download(anchorPort, "/"));
    r.anchorUpCpu = upCpu;
    r.anchorDownCpu = downCpu;
    r.anchorUp = up.ms;
    r.anchorDown = down.ms;
    await rm(anchorFile, { force: true });
  };
  const runWeb = async () => {
    const { result: up, cpu: upCpu } = await withCpu(web.pid, () =>
      withRss(() => upload(Number(webUrl.port), "/api/files")),
    );
    if (up.result.status !== 201) throw new Error(`web upload failed: ${up.result.status} ${up.result.body}`);
    const { file } = JSON.parse(up.result.body) as { file: { id: string; size: number } };
    if (file.size !== SIZE) throw new Error(`web stored ${file.size} bytes, sent ${SIZE}`);
    const { result: down, cpu: downCpu } = await withCpu(web.pid, () =>
      withRss(() => download(Number(webUrl.port), `/api/files?download=${file.id}`)),
    );
    if (down.result.status !== 200 || down.result.bytes !== SIZE) {
      throw new Error(`web download failed: ${down.result.status}, ${down.result.bytes} bytes`);
    }
    r.webUpCpu = upCpu;
    r.webDownCpu = downCpu;
    r.webUp = up.result.ms;
    r.webDown = down.result.ms;
    r.rssUp = up.growth;
    r.rssDown = down.growth;
    r.rssBefore = up.before;
    const deleted = await fetch(`${web.url}/api/files`, {
      method: "DELETE",
      headers: { cookie: `${SESSION_COOKIE}=${token}`, "content-type": "application/json", origin: web.url },
      body: JSON.stringify({ fileId: file.id }),
    });
    if (deleted.status !== 200) throw new Error(`web delete failed: ${deleted.status}`);
  };
  if (round % 2 === 0) {
    await runAnchor();
    await runWeb();
  } else {
    await runWeb();
    await runAnchor();
  }
  rounds.push(r as Round);
  const x = r as Round;
  console.log(
    `round ${round + 1}: upload web ${mibPerS(SIZE, x.webUp).toFixed(0)} MiB/s vs anchor ${mibPerS(SIZE, x.anchorUp).toFixed(0)} MiB/s; ` +
      `download web ${mibPerS(SIZE, x.webDown).toFixed(0)} vs ${mibPerS(SIZE, x.anchorDown).toFixed(0)} MiB/s; ` +
      `CPU web ${x.webUpCpu}/${x.webDownCpu} ms vs anchor ${x.anchorUpCpu}/${x.anchorDownCpu} ms (up/down); ` +
      `RSS +${(x.rssUp / 1024 / 1024).toFixed(1)} MB up, +${(x.rssDown / 1024 / 1024).toFixed(1)} MB down (from ${(x.rssBefore / 1024 / 1024).toFixed(0)} MB)`,
  );
}

const webUp = mibPerS(SIZE, median(rounds.map((r) => r.webUp)));
const anchorUp = mibPerS(SIZE, median(rounds.map((r) => r.anchorUp)));
const webDown = mibPerS(SIZE, median(rounds.map((r) => r.webDown)));
const anchorDown = mibPerS(SIZE, median(rounds.map((r) => r.anchorDown)));
const rssUp = Math.max(...rounds.map((r) => r.rssUp)) / 1024 / 1024;
const rssDown = Math.max(...rounds.map((r) => r.rssDown)) / 1024 / 1024;
console.log(`\nfiles, ${MB} MB, ${s3 ? "s3 (s3rver)" : "local"} storage, median of ${ROUNDS} rounds`);
console.log(
  `upload:   web ${webUp.toFixed(0)} MiB/s, anchor (node:http → disk) ${anchorUp.toFixed(0)} MiB/s, ratio ${(webUp / anchorUp).toFixed(2)}x (goal ≥ 0.7x)`,
);
console.log(
  `download: web ${webDown.toFixed(0)} MiB/s, anchor (disk → node:http) ${anchorDown.toFixed(0)} MiB/s, ratio ${(webDown / anchorDown).toFixed(2)}x`,
);
const cpu = (key: keyof Round) => median(rounds.map((r) => r[key]));
console.log(
  `CPU per transfer (median): upload web ${cpu("webUpCpu")} ms vs anchor ${cpu("anchorUpCpu")} ms (${(cpu("webUpCpu") / cpu("anchorUpCpu")).toFixed(2)}x), ` +
    `download web ${cpu("webDownCpu")} ms vs anchor ${cpu("anchorDownCpu")} ms (${(cpu("webDownCpu") / cpu("anchorDownCpu")).toFixed(2)}x)`,
);
console.log(
  `web RSS growth, worst round: upload +${rssUp.toFixed(1)} MB (goal < 64 MB), download +${rssDown.toFixed(1)} MB`,
);

anchor.kill("SIGTERM");
await web.stop();
await s3?.close();
await stopPostgres();
await rm(work, { recursive: true, force: true });
