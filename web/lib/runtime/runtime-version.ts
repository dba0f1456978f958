/**
 * `GET /api/runtime-version` and the web's `GET /api/runtime/version` (no auth): the backend's
 * `GET /api/runtime/version` (internal key, 8 s): `{version, image, defaultImage}`, or, when the backend fails,
 * the same fields from this web's RUNTIME_IMAGE with `fallback: true`. Either way the version is concrete
 * (a floating tag becomes 2026.4.11) and the answer carries `deployedAt`.
 */

import { normalizeRuntimeVersion } from "@svc/common/runtime-version";
import type { WebContext } from "../infra/context";
import { answerJson, callBackend } from "./backend-client";

/** How long the backend has to answer the version. */
export const VERSION_PROXY_TIMEOUT_MS = 8_000;

/**
 * When this web deployment went live: the start of this process (`performance.timeOrigin`), the same for
 * every request it serves. A new deployment starts new processes, so the value changes with each one.
 */
export const DEPLOYED_AT = new Date(performance.timeOrigin).toISOString();

export interface RuntimeVersionInfo {
  version: string;
  image: string | null;
  /** true when the backend did not answer and the version comes from this web's RUNTIME_IMAGE. */
  fallback: boolean;
  deployedAt: string;
  [field: string]: unknown;
}

export async function runtimeVersion(ctx: WebContext): Promise<RuntimeVersionInfo> {
  try {
    const answer = await callBackend(ctx.config, {
      method: "GET",
      path: "/api/runtime/version",
      timeoutMs: VERSION_PROXY_TIMEOUT_MS,
    });
    const body = answerJson(answer);
    if (answer.status === 200 && typeof body === "object" && body !== null && !Array.isArray(body)) {
      const fields = body as Record<string, unknown>;
      const image = typeof fields.image === "string" ? fields.image : null;
      const reported = typeof fields.version === "string" ? fields.version : null;
      if (reported !== null || image !== null) {
        return {
          ...fields,
          version: normalizeRuntimeVersion(reported ?? image).version,
          image: image === null ? null : normalizeRuntimeVersion(image).image,
          fallback: false,
          deployedAt: DEPLOYED_AT,
        };
      }
    }
    ctx.logger.warn(
      { status: answer.status },
      "runtime version: unusable backend answer; using the fallback",
    );
  } catch (err) {
    ctx.logger.warn(
      { reason: (err as Error).message },
      "runtime version: backend failed; using the fallback",
    );
  }
  const configured = normalizeRuntimeVersion(ctx.config.RUNTIME_IMAGE);
  return {
    version: configured.version,
    image: configured.image,
    // The platform's default image as configured (the backend's answer carries the same field).
    defaultImage: ctx.config.RUNTIME_IMAGE,
    fallback: true,
    deployedAt: DEPLOYED_AT,
  };
}
