/**
 * Runtime instances (internal key): the hosting platform's agent services with image, status and metadata,
 * and the live resource usage of one. Instance ids are the driver's service id behind an `inst_` prefix; hosting failures map through `hostingHttpError`
 * (503 not configured, 404 unknown, 500 the platform failed).
 */
import { type Clock, systemClock } from "@svc/common";
import { type Request, type Response, Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import { hostingHttpError } from "../hosting/errors";
import type { HostedService, HostingPlatform } from "../hosting/types";
import { runtimeInstanceNotFound } from "./errors";
import { type PlatformSource, resolvePlatform } from "./platform";

const PREFIX = "inst_";

export function toInstanceId(serviceId: string): string {
  return `${PREFIX}${serviceId}`;
}

/** The driver's service id of an `inst_` id; anything else names no instance. */
export function fromInstanceId(instanceId: string): string {
  if (!instanceId.startsWith(PREFIX) || instanceId.length === PREFIX.length)
    throw runtimeInstanceNotFound(instanceId);
  return instanceId.slice(PREFIX.length);
}

export interface RuntimeInstanceJson {
  id: string;
  name: string;
  provider: string;
  image: string | null;
  status: HostedService["status"];
  url: string | null;
  metadata: Record<string, unknown>;
}

export function toInstanceJson(service: HostedService, provider: string): RuntimeInstanceJson {
  return {
    id: toInstanceId(service.id),
    name: service.name,
    provider,
    image: service.image,
    status: service.status,
    url: service.url,
    metadata: service.metadata,
  };
}

/** Lists the platform's runtime instances. */
export async function listRuntimeInstances(platform: HostingPlatform): Promise<RuntimeInstanceJson[]> {
  try {
    return (await platform.list()).map((service) => toInstanceJson(service, platform.provider));
  } catch (err) {
    throw hostingHttpError(err);
  }
}

/** Live CPU and memory of one instance (null figures where the platform reports none). */
export async function runtimeInstanceStats(
  platform: HostingPlatform,
  instanceId: string,
  clock: Clock = systemClock,
) {
  const serviceId = fromInstanceId(instanceId);
  try {
    const stats = await platform.stats(serviceId);
    const memoryPercent =
      stats.memoryBytes !== null && stats.memoryLimitBytes
        ? Math.round((stats.memoryBytes / stats.memoryLimitBytes) * 10_000) / 100
        : null;
    return {
      id: instanceId,
      provider: platform.provider,
      ...stats,
      memoryPercent,
      ts: clock.now().toISOString(),
    };
  } catch (err) {
    throw hostingHttpError(err);
  }
}

/** GET /api/runtime/instances and GET /api/runtime/instances/:id/stats, behind the internal key. */
export function runtimeInstanceRoutes(
  source: PlatformSource,
  options: { internalApiKey: string | undefined; clock?: Clock },
): Router {
  const router = Router();
  // The platform is resolved per request: one that cannot be resolved answers 503 (hosting_not_configured).
  const platform = (): HostingPlatform => {
    try {
      return resolvePlatform(source);
    } catch (err) {
      throw hostingHttpError(err);
    }
  };
  router.use("/api/runtime/instances", requireInternalKey(options.internalApiKey));
  router.get("/api/runtime/instances", async (_req: Request, res: Response) => {
    res.json({ instances: await listRuntimeInstances(platform()) });
  });
  router.get("/api/runtime/instances/:id/stats", async (req: Request<{ id: string }>, res: Response) => {
    res.json(await runtimeInstanceStats(platform(), req.params.id, options.clock));
  });
  return router;
}
