/**
 * Body limits as the running web answers them to real clients: a body over the limit, with a
 * Content-Length or chunked, gets a 413 the client reads after it has finished sending (never
 * EPIPE/ECONNRESET), and changes nothing; past the drain's bound the connection is closed. How a route
 * reads its body (the limit, the cut-off) is body.test.ts's.
 */

import { UNREAD_BODY_LIMITS } from "@svc/common";
import { apiKeys, processedSecurityEvents, users } from "@svc/db/schema";
import { describe, expect, it } from "vitest";
import { postWithFetch, postWithNodeHttp } from "../../../../common/testing/oversized-post";
import { useRunningServers } from "../../../../common/testing/running-servers";
import { BROWSER_UA, signedInUser, useRunningWebContext, webContext } from "../testing";

useRunningWebContext();
const servers = useRunningServers({ web: {} });

const MB = 1024 * 1024;
const TOO_LARGE = { error: "request body is too large", code: "payload_too_large" };
const countRows = async (table: typeof users | typeof apiKeys | typeof processedSecurityEvents) =>
  (await webContext().db.select().from(table)).length;

const routes: Array<{ path: string; headers: Record<string, string> }> = [
  { path: "/api/register", headers: { "content-type": "application/json", "user-agent": BROWSER_UA } },
  { path: "/api/security/risc", headers: { "content-type": "application/secevent+jwt" } },
];

describe("a 2 MB body to a 64 KB route of the running web", () => {
  for (const { path, headers } of routes) {
    for (const chunked of [false, true]) {
      const how = chunked ? "chunked" : "with Content-Length";
      it(`POST ${path} ${how}: node:http sends it all and reads the 413`, async () => {
        const before = [await countRows(users), await countRows(processedSecurityEvents)];
        for (let i = 0; i < 3; i++) {
          const sent = await postWithNodeHttp(`${servers.web.url}${path}`, {
            bytes: 2 * MB,
            chunked,
            headers,
          });
          expect(sent.error).toBeNull();
          expect(sent.status).toBe(413);
          expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
          expect(sent.sent).toBe(2 * MB);
          expect(sent.complete).toBe(true);
        }
        expect([await countRows(users), await countRows(processedSecurityEvents)]).toEqual(before);
      });

      it(`POST ${path} ${how}: fetch reads the 413 and finishes sending`, async () => {
        for (let i = 0; i < 3; i++) {
          const { response, pulled } = postWithFetch(`${servers.web.url}${path}`, {
            bytes: 2 * MB,
            chunked,
            headers,
          });
          const res = await response;
          expect(res.status).toBe(413);
          expect(await res.json()).toEqual(TOO_LARGE);
          if (chunked) await expect.poll(pulled).toBe(2 * MB);
        }
        // The connections stay usable: the next request is answered.
        expect((await fetch(`${servers.web.url}/api/health`)).status).toBe(200);
      });
    }
  }

  it("a session route (1 MB): 413 both ways past 1 MB, no key", async () => {
    const { jar } = await signedInUser();
    const headers = { "content-type": "application/json", cookie: jar.header() };
    for (const chunked of [false, true]) {
      const sent = await postWithNodeHttp(`${servers.web.url}/api/keys`, { bytes: 2 * MB, chunked, headers });
      expect(sent.status).toBe(413);
      expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
      expect(sent.complete).toBe(true);
    }
    expect(await countRows(apiKeys)).toBe(0);
  });
});

describe("a body past the drain's bound", () => {
  it("is answered 413, then the connection is closed before the client could send it all", async () => {
    const bytes = UNREAD_BODY_LIMITS.maxBytes * 4;
    for (const chunked of [false, true]) {
      const sent = await postWithNodeHttp(`${servers.web.url}/api/register`, {
        bytes,
        chunked,
        headers: routes[0].headers,
      });
      expect(sent.status).toBe(413);
      expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
      expect(sent.complete).toBe(false);
      expect(sent.sent).toBeLessThan(bytes);
    }
    expect((await fetch(`${servers.web.url}/api/health`)).status).toBe(200);
  });
});
