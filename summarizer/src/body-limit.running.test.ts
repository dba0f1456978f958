/**
 * The body limit as the running summarizer answers it to real clients: a body over 16 KB, with a
 * Content-Length or chunked, gets a 413 the client reads after it has finished sending; past the drain's
 * bound the connection is closed instead of the whole body being read.
 */
import { UNREAD_BODY_LIMITS } from "@svc/common";
import { describe, expect, it } from "vitest";
import { postWithFetch, postWithNodeHttp } from "../../common/testing/oversized-post";
import { useRunningServers } from "../../common/testing/running-servers";

const servers = useRunningServers({ summarizer: {} });

const MB = 1024 * 1024;
const TOO_LARGE = { error: "request body is larger than 16 KB" };
const json = { "content-type": "application/json" };

describe("POST /api/summarize with a body over 16 KB", () => {
  it("a 17 KB body: 413 naming the limit", async () => {
    const res = await fetch(`${servers.summarizer.url}/api/summarize`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ url: `http://example.com/${"a".repeat(17 * 1024)}` }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(TOO_LARGE);
  });

  for (const chunked of [false, true]) {
    const how = chunked ? "chunked" : "with Content-Length";
    it(`2 MB ${how}: node:http and fetch send it all and read the 413`, async () => {
      const url = `${servers.summarizer.url}/api/summarize`;
      const sent = await postWithNodeHttp(url, { bytes: 2 * MB, chunked, headers: json });
      expect(sent.error).toBeNull();
      expect(sent.status).toBe(413);
      expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
      expect(sent.complete).toBe(true);
      const { response, pulled } = postWithFetch(url, { bytes: 2 * MB, chunked, headers: json });
      const res = await response;
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual(TOO_LARGE);
      if (chunked) await expect.poll(pulled).toBe(2 * MB);
    });
  }

  it("past the drain's bound: 413, then the connection is closed before the client could send it all", async () => {
    const bytes = UNREAD_BODY_LIMITS.maxBytes * 4;
    for (const chunked of [false, true]) {
      const sent = await postWithNodeHttp(`${servers.summarizer.url}/api/summarize`, {
        bytes,
        chunked,
        headers: json,
      });
      expect(sent.status).toBe(413);
      expect(JSON.parse(sent.body)).toEqual(TOO_LARGE);
      expect(sent.complete).toBe(false);
      expect(sent.sent).toBeLessThan(bytes);
    }
  });
});
