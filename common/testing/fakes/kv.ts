/**
 * A loopback key-value store speaking the common REST protocol (Upstash style) for tests: POST `/` with a
 * JSON command array and `Authorization: Bearer <token>`; answers `{result}` or `{error}` (400/401).
 * Supports SET (with EX), GET and DEL; `ttls` records each key's EX.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeKvStore {
  url: string;
  token: string;
  values: Map<string, string>;
  ttls: Map<string, number>;
  requests: FakeUpstream["requests"];
  /** Answer every command with this status and an error body; null to work again. */
  failWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startFakeKvStore(token = "kv-test-token-0123456789"): Promise<FakeKvStore> {
  const values = new Map<string, string>();
  const ttls = new Map<string, number>();
  let failure: number | null = null;
  const upstream = await startFakeUpstream((req, res, raw) => {
    if (req.method !== "POST") return sendJson(res, 405, { error: "use POST" });
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, { error: "Unauthorized" });
    if (failure !== null) return sendJson(res, failure, { error: "ERR store failing" });
    let command: unknown;
    try {
      command = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { error: "ERR failed to parse command" });
    }
    if (!Array.isArray(command) || !command.every((c) => typeof c === "string")) {
      return sendJson(res, 400, { error: "ERR command must be an array of strings" });
    }
    const [name, key, ...rest] = command as string[];
    switch (name?.toUpperCase()) {
      case "SET": {
        if (key === undefined || rest[0] === undefined)
          return sendJson(res, 400, { error: "ERR wrong number of arguments" });
        values.set(key, rest[0]);
        const ex = rest.findIndex((r) => r.toUpperCase() === "EX");
        if (ex >= 0) ttls.set(key, Number(rest[ex + 1]));
        return sendJson(res, 200, { result: "OK" });
      }
      case "GET":
        return sendJson(res, 200, { result: key === undefined ? null : (values.get(key) ?? null) });
      case "DEL":
        return sendJson(res, 200, { result: key !== undefined && values.delete(key) ? 1 : 0 });
      default:
        return sendJson(res, 400, { error: `ERR unknown command '${name}'` });
    }
  });
  return {
    url: upstream.url,
    token,
    values,
    ttls,
    requests: upstream.requests,
    failWith(status) {
      failure = status;
    },
    close: () => upstream.close(),
  };
}
