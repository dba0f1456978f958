/**
 * `GET /api/radio/dj-stats` through the running web server (a real client, `fetch`): the DJ's avatar whichever
 * key the radio service names it under, `avatar`, `avatarUrl` or `avatar_url` (issue 25 item 7).
 */
import { startFakeMarketData, startFakeRadioApi } from "@svc/common/testing";
import { RUNNING_SESSION_SECRET, useRunningServers } from "@svc/common/testing/running-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser, useWebTestContext } from "../infra/testing";

const radio = await startFakeRadioApi();
const market = await startFakeMarketData();
const { clock } = useWebTestContext({ SESSION_SECRET: RUNNING_SESSION_SECRET });
const servers = useRunningServers({ web: { RADIO_API_URL: radio.url, MARKET_DATA_URL: market.url } });
beforeAll(() => {
  // Sessions made here are checked by the server's own clock.
  clock.set(Date.now());
});
afterAll(async () => {
  await radio.close();
  await market.close();
});

describe("GET /api/radio/dj-stats, the DJ's avatar", () => {
  it.each([
    ["avatar", "0x1111111111111111111111111111111111111111"],
    ["avatarUrl", "0x2222222222222222222222222222222222222222"],
    ["avatar_url", "0x3333333333333333333333333333333333333333"],
  ] as const)("named `%s` by the radio service", async (avatarKey, wallet) => {
    const slug = `dj-${avatarKey.toLowerCase().replace("_", "-")}`;
    const avatar = `https://cdn.example/${slug}.png`;
    radio.djs.set(wallet, {
      name: "DJ Nova",
      slug,
      avatar,
      avatarKey,
      followers: 7,
      genres: ["house"],
      stats: { totalShows: 1, totalListeners: 2, totalTipsEth: 0 },
    });
    const { jar } = await signedInUser();
    const headers = { cookie: jar.header(), "content-type": "application/json" };
    const linked = await fetch(`${servers.web.url}/api/user/radio-wallet`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ wallet }),
    });
    expect(linked.status).toBe(200);
    const res = await fetch(`${servers.web.url}/api/radio/dj-stats`, { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      linked: true,
      wallet,
      dj: { name: "DJ Nova", slug, avatar, followers: 7, genres: ["house"] },
      stats: { totalShows: 1, totalListeners: 2, totalTipsUsdc: 0, isLive: false },
    });
  });
});
