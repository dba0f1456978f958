/**
 * A loopback radio (streaming) service API for tests: `GET /api/djs/me` (header `x-wallet-address`, 404 for
 * a wallet it does not know), `GET /api/djs/{slug}/stats` (tips in ETH) and `GET /api/streams/live`.
 * `hang` makes it accept requests and never answer; `failWith` answers an HTTP error.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeRadioDj {
  name: string;
  slug: string;
  avatar: string | null;
  /** The key the profile names the avatar under (the service's shape is inferred); default `avatar`. */
  avatarKey?: "avatar" | "avatarUrl" | "avatar_url";
  followers: number;
  genres: string[];
  stats: { totalShows: number; totalListeners: number; totalTipsEth: number };
}

export interface FakeRadioApi {
  url: string;
  requests: FakeUpstream["requests"];
  /** Lower-case wallet → DJ. */
  djs: Map<string, FakeRadioDj>;
  /** Slugs streaming now. */
  live: Set<string>;
  hang(on: boolean): void;
  failWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startFakeRadioApi(): Promise<FakeRadioApi> {
  const djs = new Map<string, FakeRadioDj>();
  const live = new Set<string>();
  let hanging = false;
  let failure: number | null = null;
  const upstream = await startFakeUpstream((req, res) => {
    if (hanging) return;
    if (failure !== null) return sendJson(res, failure, { error: "radio failing" });
    const path = new URL(req.url ?? "/", "http://radio").pathname;
    if (path === "/api/djs/me") {
      const wallet = String(req.headers["x-wallet-address"] ?? "").toLowerCase();
      const dj = djs.get(wallet);
      if (!dj) return sendJson(res, 404, { error: "DJ not found" });
      const { stats: _stats, avatar, avatarKey = "avatar", ...profile } = dj;
      return sendJson(res, 200, { dj: { ...profile, [avatarKey]: avatar } });
    }
    const stats = /^\/api\/djs\/([^/]+)\/stats$/.exec(path);
    if (stats) {
      const dj = [...djs.values()].find((d) => d.slug === decodeURIComponent(stats[1]));
      if (!dj) return sendJson(res, 404, { error: "DJ not found" });
      return sendJson(res, 200, { stats: dj.stats });
    }
    if (path === "/api/streams/live")
      return sendJson(res, 200, {
        streams: [...live].map((slug) => ({ djSlug: slug, title: `${slug} live` })),
      });
    sendJson(res, 404, { error: "not found" });
  });
  return {
    url: upstream.url,
    requests: upstream.requests,
    djs,
    live,
    hang(on) {
      hanging = on;
    },
    failWith(status) {
      failure = status;
    },
    close: () => upstream.close(),
  };
}
