/**
 * The one client of payment targets (user-supplied URLs of make-payment): a `fetch`-shaped function over the
 * outbound client with the URL guard, so the x402 and MPP client libraries call sellers through it. Every
 * hop is checked (no loopback, private or link-local address, also after a redirect or a DNS answer), at most
 * 5 redirects are followed, the whole exchange has one deadline and the answer a size cap. A redirect to another
 * origin carries neither the caller's credentials nor a signed payment (x402's headers; MPP's credential is an
 * `Authorization`), so no other host can settle the payment meant for the target.
 */
import { guardedClients, HOP_BY_HOP_HEADERS } from "@svc/common";

export const TARGET_TIMEOUT_MS = 30_000;
export const TARGET_MAX_REDIRECTS = 5;
export const TARGET_MAX_RESPONSE_BYTES = 1024 * 1024;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** The payment headers the x402 clients send (v2, v1); the outbound client drops `authorization` itself. */
export const PAYMENT_HEADERS = ["payment-signature", "x-payment"] as const;

const clientFor = guardedClients({
  name: "the payment target",
  timeoutMs: TARGET_TIMEOUT_MS,
  maxRedirects: TARGET_MAX_REDIRECTS,
  maxResponseBytes: TARGET_MAX_RESPONSE_BYTES,
});

/** A `fetch` whose every call passes the outbound guard with this allow list; failures are OutboundErrors. */
export function guardedFetch(allowHosts: readonly string[]): typeof fetch {
  const client = clientFor(allowHosts);
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (!HOP_BY_HOP_HEADERS.has(name) && name !== "host" && name !== "content-length")
        headers[name] = value;
    });
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const answer = await client.open({
      method: request.method,
      url: request.url,
      headers,
      body,
      signal: init?.signal ?? undefined,
      sensitiveHeaders: PAYMENT_HEADERS,
    });
    const payload = NULL_BODY_STATUSES.has(answer.status) ? null : await answer.readBody();
    if (payload === null) answer.discard();
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (
        value === undefined ||
        HOP_BY_HOP_HEADERS.has(name) ||
        name === "content-encoding" ||
        name === "content-length"
      )
        continue;
      for (const item of Array.isArray(value) ? value : [value]) out.append(name, item);
    }
    const response = new Response(payload === null ? null : new Uint8Array(payload), {
      status: answer.status,
      statusText: answer.statusText,
      headers: out,
    });
    Object.defineProperty(response, "url", { value: answer.url.toString() });
    return response;
  };
}
