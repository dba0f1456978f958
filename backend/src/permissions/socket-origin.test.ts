/**
 * The permission WebSocket's cookie path refuses a browser page of another site: a session cookie with an
 * `Origin` other than PUBLIC_URL's proves nothing (closed 4003). Tickets are not affected, and clients
 * that send no Origin (programs) keep working.
 */
import {
  createLogger,
  ManualClock,
  newId,
  randomToken,
  SESSION_COOKIE,
  sha256Hex,
  signPermissionTicket,
} from "@svc/common";
import { sessions } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadBackendConfig } from "../config";
import { createUser, HMAC_SECRET, INTERNAL_API_KEY, serveApp, testDatabase } from "../testing";
import { createPermissionBus } from "./bus";
import { CLOSE_FORBIDDEN, type PermissionSocketDeps, permissionSocketUpgrade } from "./socket";

const PUBLIC_URL = "https://agents.example.com";
const DATABASE_URL = process.env.DATABASE_URL as string;
const logger = createLogger("socket-origin-test", "silent");
const clock = new ManualClock("2026-11-21T10:00:00.000Z");

const database = testDatabase();
const bus = createPermissionBus({ connectionString: DATABASE_URL, logger });
await bus.start();

/** A server whose permission socket has this configuration; closed after the file. */
async function socketServer(config: PermissionSocketDeps["config"]): Promise<string> {
  const upgrade = permissionSocketUpgrade({ db: database.db, bus, config, logger, clock });
  const served = await serveApp((_req, res) => res.end());
  served.server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  afterAll(async () => {
    upgrade.close();
    await served.close();
  });
  return `${served.url.replace("http", "ws")}/ws/permissions`;
}

const configured = await socketServer({ HMAC_SECRET, INTERNAL_API_KEY, PUBLIC_URL });
const unconfigured = await socketServer({ HMAC_SECRET, INTERNAL_API_KEY });
afterAll(() => bus.stop());

async function userWithSession(): Promise<{ id: string; sessionId: string; cookie: string }> {
  const { id } = await createUser({ name: "Origin User" });
  const token = randomToken(32);
  const sessionId = newId("ses");
  await database.db.insert(sessions).values({
    id: sessionId,
    tokenHash: sha256Hex(token),
    userId: id,
    expiresAt: new Date(clock.now().getTime() + 24 * 60 * 60 * 1000),
  });
  return { id, sessionId, cookie: `${SESSION_COOKIE}=${token}` };
}

/** `connected` (the first frame) or `close <code>`. */
function outcome(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on("message", (data) => {
      resolve(JSON.parse(data.toString()).type);
      socket.close();
    });
    socket.on("close", (code) => resolve(`close ${code}`));
    socket.on("error", () => undefined);
  });
}

describe("the cookie path checks Origin", () => {
  it("refuses the session cookie from another site's page; accepts it from PUBLIC_URL's or without Origin", async () => {
    const user = await userWithSession();
    const url = `${configured}?userId=${user.id}`;
    const forbidden = `close ${CLOSE_FORBIDDEN}`;
    expect(await outcome(url, { cookie: user.cookie, origin: "https://evil.example" })).toBe(forbidden);
    expect(await outcome(url, { cookie: user.cookie, origin: "null" })).toBe(forbidden);
    expect(await outcome(url, { cookie: user.cookie, origin: "http://agents.example.com" })).toBe(forbidden);
    expect(await outcome(url, { cookie: user.cookie, origin: PUBLIC_URL })).toBe("connected");
    expect(await outcome(url, { cookie: user.cookie })).toBe("connected");
  });

  it("a ticket works from any Origin; a bad ticket falls back to the cookie, and its Origin check", async () => {
    const user = await userWithSession();
    const ticket = signPermissionTicket(HMAC_SECRET, user.id, user.sessionId, clock.now().getTime() + 60_000);
    const evil = { origin: "https://evil.example" };
    expect(await outcome(`${configured}?userId=${user.id}&token=${ticket}`, evil)).toBe("connected");
    expect(await outcome(`${configured}?userId=${user.id}&token=bad`, { ...evil, cookie: user.cookie })).toBe(
      `close ${CLOSE_FORBIDDEN}`,
    );
  });

  it("without a configured PUBLIC_URL no browser Origin passes the cookie path (programs still do)", async () => {
    const user = await userWithSession();
    const url = `${unconfigured}?userId=${user.id}`;
    expect(await outcome(url, { cookie: user.cookie, origin: PUBLIC_URL })).toBe(`close ${CLOSE_FORBIDDEN}`);
    expect(await outcome(url, { cookie: user.cookie })).toBe("connected");
  });

  it("PUBLIC_URL is read by the backend's configuration (default: the web's default)", () => {
    const base = { DATABASE_URL };
    expect(loadBackendConfig(base).PUBLIC_URL).toBe("http://localhost:3000");
    expect(loadBackendConfig({ ...base, PUBLIC_URL }).PUBLIC_URL).toBe(PUBLIC_URL);
    expect(() => loadBackendConfig({ ...base, PUBLIC_URL: "ftp://x" })).toThrow(/PUBLIC_URL/);
  });
});
