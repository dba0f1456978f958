/**
 * Body limits as the running backend answers them to real clients: a body over 1 MB, with a Content-Length
 * or chunked, gets a 413 the client reads after it has finished sending — on an Express route and on the
 * classify hook served ahead of Express — and past the drain's bound the connection is closed instead of
 * the whole body being read.
 */
import { UNREAD_BODY_LIMITS } from "@svc/common";
import { describe, expect, it } from "vitest";
import { postWithFetch, postWithNodeHttp } from "../../../common/testing/oversized-post";
import { useRunningServers } from "../../../common/testing/running-servers";
import { headersFor } from "../testing";

const servers = useRunningServers({ backend: {} });

const MB = 1024 * 1024;
const TOO_LARGE = { error: "payload_too_large", message: "request body is too large" };
const json = { "content-type": "application/json", ...headersFor("internal") };
const routes = ["/api/validate-key", "/api/hooks/classify"];

describe("a 2 MB body to the running backend", () => {
  for (const path of routes) {
    for (const chunked of [false, true]) {
      const how = chunked ? "chunked" : "with Content-Length";
      it(`POST ${path} ${how}: node:http sends it all and reads the 413`, async () => {
        for (let i = 0; i < 3; i++) {
          const sent = await postWithNodeHttp(`${servers.backend.url}${path}`, {
            bytes: 2 * MB,
            chunked,
            headers: json,
          });
          expect(sent.error).toBeNull();
          expect(sent.status).toBe(413);
          expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
          expect(sent.complete).toBe(true);
        }
      });

      it(`POST ${path} ${how}: fetch reads the 413 and finishes sending`, async () => {
        for (let i = 0; i < 3; i++) {
          const { response, pulled } = postWithFetch(`${servers.backend.url}${path}`, {
            bytes: 2 * MB,
            chunked,
            headers: json,
          });
          const res = await response;
          expect(res.status).toBe(413);
          expect(await res.json()).toEqual(TOO_LARGE);
          if (chunked) await expect.poll(pulled).toBe(2 * MB);
        }
        expect((await fetch(`${servers.backend.url}/health`)).status).toBe(200);
      });
    }
  }
});

describe("a body past the drain's bound", () => {
  it("is answered 413, then the connection is closed before the client could send it all", async () => {
    const bytes = UNREAD_BODY_LIMITS.maxBytes * 4;
    for (const path of routes) {
      for (const chunked of [false, true]) {
        const sent = await postWithNodeHttp(`${servers.backend.url}${path}`, {
          bytes,
          chunked,
          headers: json,
        });
        expect(sent.status, `${path} chunked=${chunked}`).toBe(413);
        expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
        expect(sent.complete).toBe(false);
        expect(sent.sent).toBeLessThan(bytes);
      }
    }
    expect((await fetch(`${servers.backend.url}/health`)).status).toBe(200);
  });
});
