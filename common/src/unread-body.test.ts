/**
 * drainUnreadBodies on a bare node:http server with small limits: each way an application leaves a body
 * unread (never reads it, destroys the request, resumes it with nothing reading — as body parsers do), the
 * client finishes sending and reads the answer; past the bytes or the time the connection is closed after
 * the answer; a body thrown away whole leaves the connection usable.
 */
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postWithNodeHttp } from "../testing/oversized-post";
import { drainUnreadBodies, type UnreadBodyLimits } from "./unread-body";

const KB = 1024;
const LIMITS: UnreadBodyLimits = { maxBytes: 512 * KB, maxMs: 60_000, lingerMs: 100 };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

async function serve(handler: Handler, limits = LIMITS): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer(drainUnreadBodies(handler, limits));
  server.on("connection", () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const tooLarge = (res: ServerResponse) => {
  res.writeHead(413, { "content-type": "text/plain" });
  res.end("too large");
};

/** The three ways an application leaves a body unread. */
const unreadBy: Record<string, Handler> = {
  "never reading it": (_req, res) => tooLarge(res),
  // What a Next route handler's body does when its reader cancels it (undici returns the iterator).
  "stopping its iteration after a chunk": async (req, res) => {
    for await (const _chunk of req) break;
    tooLarge(res);
  },
  // What body-parser does with a body over its limit: throw the rest away, answer once it has ended.
  "resuming it with nothing reading, answering at its end": (req, res) => {
    req.resume();
    req.once("end", () => tooLarge(res));
  },
};

describe("a body the application leaves unread", () => {
  for (const [how, handler] of Object.entries(unreadBy)) {
    it(`${how}: the client sends it all (with and without Content-Length) and reads the answer`, async () => {
      const { url } = await serve(handler);
      for (const chunked of [false, true]) {
        const sent = await postWithNodeHttp(url, { bytes: 256 * KB, chunked });
        expect(sent).toEqual({ status: 413, body: "too large", sent: 256 * KB, complete: true, error: null });
      }
    });

    it(`${how}: past maxBytes the answer is sent, then the connection is closed`, async () => {
      const { url } = await serve(handler);
      for (const chunked of [false, true]) {
        const sent = await postWithNodeHttp(url, { bytes: 64 * LIMITS.maxBytes, chunked });
        expect(sent.status).toBe(413);
        expect(sent.body).toBe("too large");
        expect(sent.complete).toBe(false);
        expect(sent.sent).toBeLessThan(64 * LIMITS.maxBytes);
      }
    });
  }

  it("past maxMs (a client that stops sending) the answer is sent, then the connection is closed", async () => {
    const { url } = await serve(unreadBy["resuming it with nothing reading, answering at its end"], {
      ...LIMITS,
      maxMs: 200,
    });
    const outcome = await new Promise<{ status?: number; body: string; closed: boolean }>((resolve) => {
      const seen = { status: undefined as number | undefined, body: "", closed: false };
      const req = request(url, {
        method: "POST",
        agent: false,
        headers: { "content-length": String(KB * KB) },
      });
      req.on("response", (res) => {
        seen.status = res.statusCode;
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          seen.body += text;
        });
      });
      req.on("error", () => undefined);
      req.on("close", () => resolve({ ...seen, closed: true }));
      // A part of the announced megabyte, then nothing more.
      req.write(Buffer.alloc(16 * KB));
    });
    expect(outcome).toEqual({ status: 413, body: "too large", closed: true });
  });

  it("a body thrown away whole leaves the connection serving the next request", async () => {
    const { url, connections } = await serve((req, res) => {
      if (req.url === "/refuse") return tooLarge(res);
      res.end("ok");
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (path: string, body: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const req = request(`${url}${path}`, { method: "POST", agent }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve(`${res.statusCode} ${text}`));
        });
        req.on("error", reject);
        req.end(body);
      });
    expect(await post("/refuse", Buffer.alloc(256 * KB))).toBe("413 too large");
    expect(await post("/next", Buffer.from("{}"))).toBe("200 ok");
    expect(connections()).toBe(1);
    agent.destroy();
  });

  it("a body the application reads whole is its own, untouched", async () => {
    const { url } = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => res.end(String(Buffer.concat(chunks).length)));
    });
    for (const chunked of [false, true]) {
      const sent = await postWithNodeHttp(url, { bytes: 4 * LIMITS.maxBytes, chunked });
      expect(sent).toMatchObject({
        status: 200,
        body: String(4 * LIMITS.maxBytes),
        complete: true,
        error: null,
      });
    }
  });
});
