/**
 * The permission WebSocket's cookie path refuses a browser page of another site: a session cookie with an
 * `Origin` other than PUBLIC_URL's proves nothing (closed 4003). Tickets are not affected, and clients
 * that send no Origin (programs) keep working.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createLogger,
  ManualClock,
  newId,
  randomToken,
  SESSION_COOKIE,
  sha256Hex,
  signPermissionTicket,
} from "@svc/common";
import { connectDatabase } from "@svc/db";
import { sessions, users } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadBackendConfig } from "../config";
import { createPermissionBus } from "./bus";
import { CLOSE_FORBIDDEN, type PermissionSocketDeps, permissionSocketUpgrade } from "./socket";

const HMAC_SECRET = "socket-origin-hmac-0123456789abcdef";
const INTERNAL_API_KEY = "socket-origin-key-0123456789abcdef";
const PUBLIC_URL = "https://agents.example.com";
const DATABASE_URL = process.env.DATABASE_URL as string;
const logger = createLogger("socket-origin-test", "silent");
const clock = new ManualClock("2026-11-21T10:00:00.000Z");

const database = connectDatabase(DATABASE_URL, { applicationName: "socket-origin-test", max: 3 });
const bus = createPermissionBus({ connectionString: DATABASE_URL, logger });
await bus.start();

/** A server whose permission socket has this configuration; closed after the file. */
async function socketServer(config: PermissionSocketDeps["config"]): Promise<string> {
  const upgrade = permissionSocketUpgrade({ db: database.db, bus, config, logger, clock });
  const server = createServer((_req, res) => res.end());
  server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(async () => {
    upgrade.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/permissions`;
}

const configured = await socketServer({ HMAC_SECRET, INTERNAL_API_KEY, PUBLIC_URL });
const unconfigured = await socketServer({ HMAC_SECRET, INTERNAL_API_KEY });
afterAll(async () => {
  await bus.stop();
  await database.close();
});

async function userWithSession(): Promise<{ id: string; sessionId: string; cookie: string }> {
  const id = newId("usr");
  await database.db.insert(users).values({
    id,
    email: `${id}@example.com`,
    name: "Origin User",
    referralCode: `R${randomToken(6).replace(/[^A-Za-z0-9]/g, "x")}`,
  });
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
