/**
 * The files routes' test suite, run once per storage driver (routes.local.test.ts, routes.s3.test.ts):
 * every endpoint's success shape and error statuses, the streaming cut-off at FILE_MAX_BYTES and
 * at the quota leaving no row and no object, the quota under concurrent uploads, and owner scoping.
 */
import { randomBytes } from "node:crypto";
import { agents, files, fileUploadReservations, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as QUOTA } from "@/app/api/files/quota/route";
import { DELETE, GET, POST } from "@/app/api/files/route";
import {
  CookieJar,
  call,
  makeRequest,
  signedInUser,
  type useWebTestContext,
  webContext,
} from "../infra/testing";
import { fileStorage } from "./storage";

const KIB = 1024;
const MIB = 1024 * KIB;
/** The suite's limits: small, so the cut-off tests move little data. */
const MAX_BYTES = 800 * KIB;

export interface DriverUnderTest {
  /** Every file the driver's backing store holds (to prove an upload left nothing behind). */
  storedFiles(): Promise<string[]>;
}

type FilePart = { name: string; filename: string; type?: string; data: Uint8Array };
type TextPart = { name: string; value: string };
type Part = FilePart | TextPart;

const BOUNDARY = "----svc-test-boundary-7d1f";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function partHead(part: Part): string {
  if ("value" in part) return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n`;
  const type = part.type === undefined ? "" : `Content-Type: ${part.type}\r\n`;
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n${type}\r\n`;
}

/** A multipart/form-data body, as a browser sends it. */
function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(partHead(part), "utf8"));
    chunks.push("value" in part ? Buffer.from(part.value, "utf8") : Buffer.from(part.data));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

interface StreamedUpload {
  /** Bytes the client has sent so far. */
  sent(): number;
  /** Lets a stream held after `holdAfter` bytes finish. */
  release(): void;
  body: ReadableStream<Uint8Array>;
}

/**
 * A multipart body sent in 16 KiB chunks, yielding to the event loop between chunks (so concurrent uploads
 * interleave); with `holdAfter` it stops sending after that many bytes until released.
 */
function streamedBody(body: Buffer, holdAfter?: number): StreamedUpload {
  let offset = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (holdAfter !== undefined && offset >= holdAfter) await held;
      await new Promise((resolve) => setImmediate(resolve));
      if (offset >= body.length) return controller.close();
      const chunk = body.subarray(offset, offset + 16 * KIB);
      offset += chunk.length;
      controller.enqueue(new Uint8Array(chunk));
    },
  });
  return { sent: () => offset, release, body: stream };
}

/** A browser's upload request; a Buffer body declares its Content-Length, a stream only when given `length`. */
function uploadRequest(jar: CookieJar, body: Buffer | ReadableStream<Uint8Array>, length?: number): Request {
  const headers = new Headers(makeRequest({ method: "POST", path: "/api/files", jar }).headers);
  headers.set("content-type", CONTENT_TYPE);
  const declared = Buffer.isBuffer(body) ? body.length : length;
  if (declared !== undefined) headers.set("content-length", String(declared));
  return new Request("http://localhost:3000/api/files", {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
}

function bytes(n: number, seed = 1): Buffer {
  const out = randomBytes(n);
  out[0] = seed;
  return out;
}

/** The suite's limits plus the driver's variables, for `useWebTestContext` in the test file. */
export function suiteEnv(driverEnv: Record<string, string>): Record<string, string> {
  return { FILE_MAX_BYTES: String(MAX_BYTES), FILE_QUOTA_MB: "1", FILE_QUOTA_MB_TEAM: "3", ...driverEnv };
}

export function describeFileRoutes(
  driver: string,
  under: DriverUnderTest,
  { clock, config }: ReturnType<typeof useWebTestContext>,
): void {
  const storage = () => fileStorage(config);

  async function userWithAgent(plan = "solo") {
    const signedIn = await signedInUser();
    if (plan !== "solo")
      await webContext().db.update(users).set({ plan }).where(eq(users.id, signedIn.user.id));
    const agent = await addAgent(signedIn.user.id);
    return { ...signedIn, agent };
  }
  async function addAgent(userId: string) {
    const [agent] = await webContext()
      .db.insert(agents)
      .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId, name: "A" })
      .returning();
    return agent;
  }
  async function upload(
    jar: CookieJar,
    agentId: string,
    data: Uint8Array,
    filename = "notes.txt",
    type = "text/plain",
  ) {
    clock.advance(1000);
    return POST(
      uploadRequest(
        jar,
        multipart([
          { name: "agentId", value: agentId },
          { name: "file", filename, type, data },
        ]),
      ),
    );
  }
  async function uploaded(
    jar: CookieJar,
    agentId: string,
    data: Uint8Array,
    filename?: string,
    type?: string,
  ) {
    const res = await upload(jar, agentId, data, filename, type);
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { file: { id: string; name: string; size: number; type: string } }).file;
  }
  async function rowsOf(userId: string) {
    return webContext().db.select().from(files).where(eq(files.userId, userId));
  }
  async function reservationsOf(userId: string) {
    return webContext()
      .db.select()
      .from(fileUploadReservations)
      .where(eq(fileUploadReservations.userId, userId));
  }
  async function storedBytes(key: string): Promise<Buffer | null> {
    const stream = await storage().open(key);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  function download(jar: CookieJar, id: string) {
    return call(GET, { path: `/api/files?download=${encodeURIComponent(id)}`, jar });
  }
  function remove(jar: CookieJar, fileId: unknown) {
    return call(DELETE, { method: "DELETE", path: "/api/files", json: { fileId }, jar });
  }
  /** Asserts the user has no file row and no reservation, and the store holds what it held before. */
  async function expectNothingLeft(userId: string, storedBefore: string[]) {
    expect(await rowsOf(userId)).toEqual([]);
    expect(await reservationsOf(userId)).toEqual([]);
    expect(await under.storedFiles()).toEqual(storedBefore);
  }

  describe(`files on ${driver} storage`, () => {
    it("uses the configured driver", () => {
      expect(storage().driver).toBe(driver);
    });

    describe("POST /api/files", () => {
      it("201 {success, file: {id, name, size, type, url, uploaded}}, the row and the stored bytes under the file id", async () => {
        const { user, jar, agent } = await userWithAgent();
        const data = bytes(300 * KIB);
        const res = await upload(jar, agent.id, data, "report 2026.pdf", "application/pdf");
        expect(res.status).toBe(201);
        const body = await res.json();
        expect(Object.keys(body).sort()).toEqual(["file", "success"]);
        expect(Object.keys(body.file).sort()).toEqual(["id", "name", "size", "type", "uploaded", "url"]);
        expect(body).toEqual({
          success: true,
          file: {
            id: expect.stringMatching(/^file_[0-9a-z]{20}$/),
            name: "report_2026.pdf",
            size: data.length,
            type: "application/pdf",
            url: `/api/files?download=${body.file.id}`,
            uploaded: clock.now().toISOString(),
          },
        });
        const rows = await rowsOf(user.id);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({
          id: body.file.id,
          agentId: agent.id,
          filename: "report_2026.pdf",
          storagePath: body.file.id,
          size: data.length,
          mimeType: "application/pdf",
        });
        expect((await storedBytes(body.file.id))?.equals(data)).toBe(true);
        expect(await reservationsOf(user.id)).toEqual([]);
      });

      it("sanitizes the name as sent, path and Unicode included; an empty name becomes upload_<timestamp>", async () => {
        const { jar, agent } = await userWithAgent();
        expect((await uploaded(jar, agent.id, bytes(10), "../../etc/pässwd")).name).toBe("_.._etc_p_sswd");
        expect((await uploaded(jar, agent.id, bytes(10), "...hidden")).name).toBe("hidden");
        const empty = await uploaded(jar, agent.id, bytes(10), "..");
        expect(empty.name).toBe(`upload_${clock.now().getTime()}`);
        expect((await uploaded(jar, agent.id, bytes(10), `${"a".repeat(200)}.txt`)).name).toBe(
          "a".repeat(128),
        );
      });

      it("stores an unusable Content-Type as application/octet-stream", async () => {
        const { jar, agent } = await userWithAgent();
        expect((await uploaded(jar, agent.id, bytes(10), "x.bin", "not a type")).type).toBe(
          "application/octet-stream",
        );
        expect((await uploaded(jar, agent.id, bytes(10), "y.txt", "Text/Plain; charset=utf-8")).type).toBe(
          "text/plain",
        );
      });

      it("accepts the file before agentId and a body without Content-Length (chunked)", async () => {
        const { user, jar, agent } = await userWithAgent();
        const data = bytes(100 * KIB);
        const body = multipart([
          { name: "file", filename: "a.bin", data },
          { name: "agentId", value: agent.id },
        ]);
        const res = await POST(uploadRequest(jar, streamedBody(body).body));
        expect(res.status).toBe(201);
        const { file } = await res.json();
        expect(file.size).toBe(data.length);
        expect((await storedBytes(file.id))?.equals(data)).toBe(true);
        expect(await rowsOf(user.id)).toHaveLength(1);
      });

      it("401 without a session, nothing stored", async () => {
        const before = await under.storedFiles();
        const res = await POST(
          uploadRequest(new CookieJar(), multipart([{ name: "agentId", value: "agt_x" }])),
        );
        expect(res.status).toBe(401);
        expect(await under.storedFiles()).toEqual(before);
      });

      it("400 naming the problem: no file, no agentId, not multipart, an unknown field, two files; nothing left", async () => {
        const { user, jar, agent } = await userWithAgent();
        const before = await under.storedFiles();
        const file = { name: "file", filename: "a.txt", type: "text/plain", data: bytes(1000) };
        const cases: Array<[Buffer, string]> = [
          [multipart([{ name: "agentId", value: agent.id }]), "File is required"],
          [
            multipart([
              { name: "agentId", value: agent.id },
              { ...file, filename: "", data: new Uint8Array() },
            ]),
            "File is required",
          ],
          [multipart([file]), "Agent is required"],
          [multipart([{ name: "agentId", value: "  " }, file]), "Agent is required"],
          [
            multipart([{ name: "agentId", value: agent.id }, { name: "note", value: "x" }, file]),
            "unknown field: note",
          ],
          [
            multipart([
              { name: "agentId", value: agent.id },
              { ...file, name: "attachment" },
            ]),
            "unknown field: attachment",
          ],
          [
            multipart([{ name: "agentId", value: agent.id }, file, { ...file, filename: "b.txt" }]),
            "send one file per upload",
          ],
          [
            multipart([{ name: "agentId", value: agent.id }, { name: "agentId", value: agent.id }, file]),
            "Agent was sent more than once",
          ],
          [
            multipart([{ name: "agentId", value: "x".repeat(2000) }, file]),
            "Agent must be at most 1024 bytes",
          ],
          [
            Buffer.from(
              `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc`,
            ),
            "malformed multipart body",
          ],
        ];
        for (const [body, message] of cases) {
          const res = await POST(uploadRequest(jar, body));
          expect(res.status, message).toBe(400);
          expect((await res.json()).error).toContain(message);
        }
        const json = await call(POST, {
          method: "POST",
          path: "/api/files",
          json: { agentId: agent.id },
          jar,
        });
        expect(json.status).toBe(400);
        expect((await json.json()).error).toMatch(/multipart\/form-data/);
        await expectNothingLeft(user.id, before);
      });

      it("404 for another user's agent or an unknown one, whether agentId comes before or after the file", async () => {
        const { user, jar } = await userWithAgent();
        const other = await userWithAgent();
        const before = await under.storedFiles();
        const data = bytes(50 * KIB);
        for (const agentId of [other.agent.id, "agt_unknown"]) {
          for (const parts of [
            [
              { name: "agentId", value: agentId },
              { name: "file", filename: "a", data },
            ],
            [
              { name: "file", filename: "a", data },
              { name: "agentId", value: agentId },
            ],
          ] as Part[][]) {
            const res = await POST(uploadRequest(jar, multipart(parts)));
            expect(res.status).toBe(404);
            expect(await res.json()).toEqual({ error: "agent not found", code: "agent_not_found" });
          }
        }
        await expectNothingLeft(user.id, before);
      });

      it("413 over FILE_MAX_BYTES: cut off at the limit while the client is still sending; no row, no object", async () => {
        const { user, jar, agent } = await userWithAgent("team");
        const before = await under.storedFiles();
        const body = multipart([
          { name: "agentId", value: agent.id },
          { name: "file", filename: "big.bin", data: bytes(4 * MAX_BYTES) },
        ]);
        // The client stops after twice the limit and waits: the answer must come before it sends the rest.
        const sending = streamedBody(body, 2 * MAX_BYTES);
        const res = await POST(uploadRequest(jar, sending.body));
        expect(res.status).toBe(413);
        expect(await res.json()).toEqual({
          error: "“big.bin” is bigger than the per-file limit of 800 KB",
          code: "file_too_large",
          maxBytes: MAX_BYTES,
          filename: "big.bin",
          field: "file",
        });
        expect(sending.sent()).toBeLessThan(body.length);
        sending.release();
        await expectNothingLeft(user.id, before);
      });

      it("a file of exactly FILE_MAX_BYTES is accepted", async () => {
        const { jar, agent } = await userWithAgent();
        const data = bytes(MAX_BYTES);
        const file = await uploaded(jar, agent.id, data, "exact.bin");
        expect(file.size).toBe(MAX_BYTES);
        expect((await storedBytes(file.id))?.equals(data)).toBe(true);
      });

      it("413 over the quota (FILE_QUOTA_MB): cut off where the quota ends; the stored files stay, nothing else", async () => {
        const { user, jar, agent } = await userWithAgent();
        const first = await uploaded(jar, agent.id, bytes(600 * KIB), "first.bin");
        const before = await under.storedFiles();
        const res = await upload(jar, agent.id, bytes(600 * KIB), "second.bin");
        expect(res.status).toBe(413);
        expect(await res.json()).toEqual({
          error: "“second.bin” is bigger than the free space left: 424 KB free of your 1 MB",
          code: "storage_limit_exceeded",
          quotaBytes: MIB,
          usedBytes: 600 * KIB,
          filename: "second.bin",
          field: "file",
        });
        expect((await rowsOf(user.id)).map((r) => r.id)).toEqual([first.id]);
        expect(await reservationsOf(user.id)).toEqual([]);
        expect(await under.storedFiles()).toEqual(before);
        // What is left still fits.
        await uploaded(jar, agent.id, bytes(MIB - 600 * KIB), "rest.bin");
        const full = await upload(jar, agent.id, bytes(1), "one-more.bin");
        expect(full.status).toBe(413);
      });

      it("FILE_QUOTA_MB_<PLAN> sets a plan's quota", async () => {
        const team = await userWithAgent("team");
        const solo = await userWithAgent();
        for (let i = 0; i < 3; i++) await uploaded(team.jar, team.agent.id, bytes(700 * KIB), `t${i}.bin`);
        expect((await upload(solo.jar, solo.agent.id, bytes(700 * KIB))).status).toBe(201);
        expect((await upload(solo.jar, solo.agent.id, bytes(700 * KIB))).status).toBe(413);
        const quota = await call(QUOTA, { path: "/api/files/quota", jar: team.jar });
        expect(await quota.json()).toEqual({
          plan: "team",
          quotaBytes: 3 * MIB,
          usedBytes: 3 * 700 * KIB,
          maxFileBytes: MAX_BYTES,
        });
      });

      for (const withLength of [true, false]) {
        it(`two concurrent uploads cannot together pass the quota (${withLength ? "with" : "without"} Content-Length)`, async () => {
          const { user, jar, agent } = await userWithAgent();
          const before = await under.storedFiles();
          const bodies = [1, 2].map((seed) =>
            multipart([
              { name: "agentId", value: agent.id },
              { name: "file", filename: `c${seed}.bin`, data: bytes(600 * KIB, seed) },
            ]),
          );
          const responses = await Promise.all(
            bodies.map((body) =>
              POST(uploadRequest(jar, streamedBody(body).body, withLength ? body.length : undefined)),
            ),
          );
          expect(responses.map((r) => r.status).sort()).toEqual([201, 413]);
          const refused = await responses.find((r) => r.status === 413)?.json();
          expect(refused.code).toBe("storage_limit_exceeded");
          const rows = await rowsOf(user.id);
          expect(rows).toHaveLength(1);
          expect(rows[0].size).toBe(600 * KIB);
          expect(await reservationsOf(user.id)).toEqual([]);
          // The store holds the accepted file's object and nothing of the refused one.
          expect((await storedBytes(rows[0].id))?.length).toBe(600 * KIB);
          const added = (await under.storedFiles()).filter((f) => !before.includes(f));
          expect(added.length).toBeGreaterThan(0);
          for (const path of added) expect(path).toContain(rows[0].id);
        });
      }

      it("a live reservation holds quota; an expired one (a crashed upload) does not", async () => {
        const { user, jar, agent } = await userWithAgent();
        const now = clock.now().getTime();
        await webContext()
          .db.insert(fileUploadReservations)
          .values([
            { id: "file_live", userId: user.id, bytes: 700 * KIB, expiresAt: new Date(now + 60_000) },
            { id: "file_dead", userId: user.id, bytes: MIB, expiresAt: new Date(now - 1) },
          ]);
        expect((await upload(jar, agent.id, bytes(400 * KIB))).status).toBe(413);
        expect((await reservationsOf(user.id)).map((r) => r.id)).toEqual(["file_live"]);
        await webContext()
          .db.delete(fileUploadReservations)
          .where(eq(fileUploadReservations.id, "file_live"));
        expect((await upload(jar, agent.id, bytes(400 * KIB))).status).toBe(201);
      });
    });

    describe("GET /api/files", () => {
      it("{files, totalSize, count}, newest first, ?agentId= one agent's, never another user's", async () => {
        const { user, jar, agent } = await userWithAgent();
        const second = await addAgent(user.id);
        const other = await userWithAgent();
        await uploaded(other.jar, other.agent.id, bytes(10));
        const a = await uploaded(jar, agent.id, bytes(100), "a.txt");
        const b = await uploaded(jar, second.id, bytes(250), "b.json", "application/json");
        const c = await uploaded(jar, agent.id, bytes(50), "c.txt");
        const res = await call(GET, { path: "/api/files", jar });
        expect(res.status).toBe(200);
        const body = await res.json();
        expect(Object.keys(body).sort()).toEqual(["count", "files", "totalSize"]);
        expect(body.count).toBe(3);
        expect(body.totalSize).toBe(400);
        expect(body.files.map((f: { id: string }) => f.id)).toEqual([c.id, b.id, a.id]);
        expect(body.files[1]).toEqual({
          id: b.id,
          filename: "b.json",
          url: `/api/files?download=${b.id}`,
          size: 250,
          mimeType: "application/json",
          agentId: second.id,
          createdAt: expect.any(String),
        });
        const one = await (await call(GET, { path: `/api/files?agentId=${agent.id}`, jar })).json();
        expect(one).toMatchObject({ count: 2, totalSize: 150 });
        expect(one.files.map((f: { id: string }) => f.id)).toEqual([c.id, a.id]);
      });

      it("?agentId= of another user's agent or an unknown one is 404 agent not found, as on upload", async () => {
        const { jar } = await userWithAgent();
        const other = await userWithAgent();
        await uploaded(other.jar, other.agent.id, bytes(10));
        for (const agentId of [other.agent.id, "agt_unknown"]) {
          const res = await call(GET, { path: `/api/files?agentId=${agentId}`, jar });
          expect(res.status).toBe(404);
          expect(await res.json()).toEqual({ error: "agent not found", code: "agent_not_found" });
        }
      });

      it("401 without a session; 400 for an unknown query field", async () => {
        expect((await call(GET, { path: "/api/files" })).status).toBe(401);
        const { jar } = await userWithAgent();
        const res = await call(GET, { path: "/api/files?owner=me", jar });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatch(/owner/);
      });
    });

    describe("GET /api/files?download=<id>", () => {
      // The answer's headers and error bodies as the server sends them: download.running.test.ts.
      it("streams the stored bytes", async () => {
        const { jar, agent } = await userWithAgent();
        const data = bytes(200 * KIB);
        const file = await uploaded(jar, agent.id, data, "photo 1.png", "image/png");
        const res = await download(jar, file.id);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
      });

      it("403 when the stored path resolves outside the storage root (download and delete)", async () => {
        const { user, jar, agent } = await userWithAgent();
        const file = await uploaded(jar, agent.id, bytes(10));
        for (const path of ["../outside", "../../etc/passwd", "a/../../b", "/etc/passwd"]) {
          await webContext().db.update(files).set({ storagePath: path }).where(eq(files.id, file.id));
          const res = await download(jar, file.id);
          expect(res.status, path).toBe(403);
          expect(await res.json()).toEqual({
            error: "the file's path lies outside the upload directory",
            code: "path_outside_storage",
          });
          expect((await remove(jar, file.id)).status).toBe(403);
        }
        expect(await rowsOf(user.id)).toHaveLength(1);
      });

      it("404 when the stored bytes are gone", async () => {
        const { jar, agent } = await userWithAgent();
        const file = await uploaded(jar, agent.id, bytes(10));
        await storage().remove(file.id);
        expect((await download(jar, file.id)).status).toBe(404);
      });
    });

    describe("DELETE /api/files", () => {
      it("{success: true, fileId}: the row and the stored bytes are gone", async () => {
        const { user, jar, agent } = await userWithAgent();
        const before = await under.storedFiles();
        const file = await uploaded(jar, agent.id, bytes(100 * KIB));
        expect(await storedBytes(file.id)).not.toBeNull();
        const res = await remove(jar, file.id);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ success: true, fileId: file.id });
        expect(await storedBytes(file.id)).toBeNull();
        expect((await download(jar, file.id)).status).toBe(404);
        await expectNothingLeft(user.id, before);
      });

      it("404 for another user's file (which stays) or an unknown id; 400 without fileId; 401 without a session", async () => {
        const owner = await userWithAgent();
        const file = await uploaded(owner.jar, owner.agent.id, bytes(10));
        const stranger = await userWithAgent();
        for (const id of [file.id, "file_unknown"]) {
          const res = await remove(stranger.jar, id);
          expect(res.status).toBe(404);
          expect((await res.json()).code).toBe("not_found");
        }
        expect(await storedBytes(file.id)).not.toBeNull();
        expect(await rowsOf(owner.user.id)).toHaveLength(1);
        for (const body of [{}, { fileId: "" }, { fileId: 7 }]) {
          const res = await call(DELETE, {
            method: "DELETE",
            path: "/api/files",
            json: body,
            jar: owner.jar,
          });
          expect(res.status).toBe(400);
          expect((await res.json()).field).toBe("fileId");
        }
        expect((await remove(new CookieJar(), file.id)).status).toBe(401);
      });
    });

    it("metrics count uploaded and downloaded bytes, and refused uploads by reason", async () => {
      const { jar, agent } = await userWithAgent();
      const { metricsRegistry } = await import("@svc/common/metrics/index");
      const value = async (name: string) =>
        ((await metricsRegistry().getSingleMetric(name)?.get())?.values[0]?.value as number | undefined) ?? 0;
      const up = await value("files_uploaded_bytes_total");
      const down = await value("files_downloaded_bytes_total");
      const file = await uploaded(jar, agent.id, bytes(1234));
      await (await download(jar, file.id)).arrayBuffer();
      expect((await value("files_uploaded_bytes_total")) - up).toBe(1234);
      await expect.poll(async () => (await value("files_downloaded_bytes_total")) - down).toBe(1234);
      const refused = async (reason: string) =>
        ((await metricsRegistry().getSingleMetric("files_uploads_refused_total")?.get())?.values.find(
          (v) => v.labels.reason === reason,
        )?.value as number | undefined) ?? 0;
      const tooLarge = await refused("file_too_large");
      const overQuota = await refused("storage_limit_exceeded");
      expect((await upload(jar, agent.id, bytes(MAX_BYTES + 1))).status).toBe(413);
      await uploaded(jar, agent.id, bytes(MAX_BYTES));
      // The quota (1 MiB) has less than 1234 + MAX_BYTES + 300 KiB left: refused at the reservation or cut off.
      expect((await upload(jar, agent.id, bytes(300 * KIB))).status).toBe(413);
      expect((await refused("file_too_large")) - tooLarge).toBe(1);
      expect((await refused("storage_limit_exceeded")) - overQuota).toBe(1);
    });
  });
}
