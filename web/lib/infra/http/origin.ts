import { isPublicOrigin } from "@svc/common";
import { crossSiteRequest } from "./codes";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** `Sec-Fetch-Site` values of a request the platform's own pages (or the person, typing a URL) made. */
const OWN_FETCH_SITES = new Set(["same-origin", "none"]);

/**
 * Refuses (403 `cross_site_request`) a state-changing request a browser sent from another site: an `Origin`
 * other than `PUBLIC_URL`'s, or a `Sec-Fetch-Site` of `same-site`/`cross-site`. A request with neither
 * header is not a browser's (programs, curl) and passes; so do GET, HEAD and OPTIONS.
 */
export function assertSameOrigin(request: Request, publicUrl: string): void {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return;
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  const foreignOrigin = origin !== null && !isPublicOrigin(origin, publicUrl);
  const foreignSite = site !== null && !OWN_FETCH_SITES.has(site.toLowerCase());
  if (foreignOrigin || foreignSite) {
    throw crossSiteRequest();
  }
}
