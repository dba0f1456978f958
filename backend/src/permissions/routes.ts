import { bearerCredential, type Clock, safeEqual, systemClock } from "@svc/common";
import { grantsScope } from "@svc/common/api-scopes";
import { findApiKeyOwner } from "@svc/common/credentials";
import type { Database } from "@svc/db";
import express, { type RequestHandler, Router } from "express";
import type { Logger } from "pino";
import { agentNotFound } from "../agents/errors";
import { findAgent } from "../agents/service";
import { requireInternalKey } from "../auth/internal-key";
import { userContextOf, userContextSecret, verifyUserContext } from "../auth/user-context";
import type { BackendConfig } from "../config";
import { parseBody } from "../http/body";
import type { PermissionBus } from "./bus";
import { insufficientScope, unauthorized } from "./errors";
import { classifyBody, DEFAULT_LIST_LIMIT, decisionBody, encodeListCursor, listQuery } from "./inputs";
import {
  classifyAndQueue,
  decideAndPublish,
  type PermissionPolicyConfig,
  pendingCutoff,
  permissionPolicy,
} from "./service";
import { listPendingPermissions, permissionJson } from "./store";

export type PermissionRoutesConfig = Pick<
  BackendConfig,
  "INTERNAL_API_KEY" | "HMAC_SECRET" | "DATA_ENCRYPTION_KEY"
> &
  PermissionPolicyConfig;

export interface PermissionRoutesDeps {
  db: Database;
  bus: PermissionBus;
  config: PermissionRoutesConfig;
  logger?: Logger;
  /** Records `last_used_at` of API keys; request times and expiry. */
  clock?: Clock;
}

/**
 * Permissions, for the authenticated user:
 * POST `/api/permissions/classify` `{agentId, toolName, toolInput}` → `{allow, tier, reason, requestId?}`,
 * GET `/api/permissions?agentId=&limit=&cursor=` → `{pending, nextCursor}` (live requests, oldest first,
 * `limit` default 50, at most 100; `nextCursor` null on the last page), POST `/api/permissions`
 * `{requestId, decision}` → `{success, requestId, decision, tier}`. The agents' `/api/hooks` routes are
 * their own router (`hooks.ts`).
 */
export function permissionRoutes(deps: PermissionRoutesDeps): Router {
  const { db, bus, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const policy = permissionPolicy(deps.config);
  const service = { db, bus, logger, clock, policy };
  const auth = permissionAuth(db, deps.config, clock);
  const router = Router();
  // Mounted before the app's body parser (see app.ts): its own JSON parsing, scoped to its paths.
  router.use("/api/permissions", express.json({ limit: "1mb" }));

  router.post("/api/permissions/classify", auth, async (req, res) => {
    const { userId } = userContextOf(res);
    const body = parseBody(classifyBody, req.body);
    // Only the signed user's own agent; a context naming no user owns none (findAgent without a user
    // would look the agent up for anybody).
    const agent = userId ? await findAgent(db, body.agentId, userId) : null;
    if (!agent) throw agentNotFound();
    res.json(await classifyAndQueue(service, { prefix: "perm", userId, ...body }));
  });

  router.get("/api/permissions", auth, async (req, res) => {
    const { agentId, limit = DEFAULT_LIST_LIMIT, cursor } = parseBody(listQuery, req.query);
    // One more than the page: whether a next page exists without a count.
    const rows = await listPendingPermissions(db, userContextOf(res).userId, {
      agentId,
      cutoffMs: pendingCutoff(service),
      limit: limit + 1,
      after: cursor,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last ? encodeListCursor(last) : null;
    res.json({ pending: page.map(permissionJson), nextCursor });
  });

  router.post("/api/permissions", auth, async (req, res) => {
    const { requestId, decision } = parseBody(decisionBody, req.body ?? {});
    res.json(await decideAndPublish(service, { userId: userContextOf(res).userId, requestId, decision }));
  });

  return router;
}

/**
 * Bearer of the permission endpoints: the internal key with a signed user context (the web proxy), or a
 * user's own `svc_` API key (its user, no context headers needed). 401 when the header is missing or an API
 * key is not valid (unknown, revoked, expired), 403 `insufficient_scope` for a key without `approvals:read`
 * (GET) or `approvals:write` (the rest), 403 when another key does not match the internal key.
 */
function permissionAuth(db: Database, config: PermissionRoutesConfig, clock: Clock): RequestHandler {
  const internalKey = requireInternalKey(config.INTERNAL_API_KEY);
  const userContext = verifyUserContext({ secret: userContextSecret(config), required: true });
  return async (req, res, next) => {
    const presented = bearerCredential(req.get("authorization"));
    if (presented === null) {
      throw unauthorized("Authorization: Bearer <internal API key> or Bearer <svc_ API key> required");
    }
    const isInternalKey =
      Boolean(config.INTERNAL_API_KEY) && safeEqual(presented, config.INTERNAL_API_KEY ?? "");
    if (!isInternalKey && presented.startsWith("svc_")) {
      const owner = await findApiKeyOwner({ db, clock }, presented);
      if (!owner) throw unauthorized("invalid API key");
      // The web's rule for its own routes: reading pending requests is approvals:read, the rest writes.
      const access = req.method === "GET" ? "read" : "write";
      if (!grantsScope(owner.scopes, "approvals", access)) throw insufficientScope(`approvals:${access}`);
      res.locals.userContext = { userId: owner.user.id, userEmail: "", userRole: "user" };
      next();
      return;
    }
    // Both throw their 401/403/500 synchronously, so the chain needs no error callback.
    internalKey(req, res, () => userContext(req, res, next));
  };
}
