/**
 * The agents' side of permissions: the pre-tool-use hook of an agent container asks
 * `POST /api/hooks/classify` before every tool call and, for a dangerous one, long-polls
 * `GET /api/hooks/decision/:requestId` until its user decides. Both authenticate with the agent's own
 * gateway token (`Authorization: Bearer <OPENCLAW_GATEWAY_TOKEN>`), which names the agent and its user.
 *
 * The classify route is the hot path: for a safe call it costs the token lookup and the classifier only.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerCredential, type Clock, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import express, { type Request, type RequestHandler, type Response, Router } from "express";
import type { Logger } from "pino";
import { type GatewayTokenStore, gatewayTokenStore, type TokenOwner } from "../agents/tokens";
import type { BackendConfig } from "../config";
import { parseBody } from "../http/body";
import { answerError, sendJson } from "../http/errors";
import type { PermissionBus, PermissionEvent } from "./bus";
import { gatewayTokensUnusable, notThisAgent, permissionNotFound, unauthorized } from "./errors";
import { decisionWaitQuery, parseHookClassifyBody } from "./inputs";
import {
  type ClassifyAnswer,
  classifyAndQueue,
  type PermissionPolicy,
  type PermissionPolicyConfig,
  type PermissionServiceDeps,
  pendingCutoff,
  permissionPolicy,
} from "./service";
import { findAgentPermission, type HookStatus, hookStatusOf } from "./store";
import { AgentWaits } from "./waits";

export interface HookRoutesDeps {
  db: Database;
  bus: PermissionBus;
  config: Pick<BackendConfig, "DATA_ENCRYPTION_KEY"> & PermissionPolicyConfig;
  logger?: Logger;
  /** How often a waiting long-poll re-reads its row in case a bus event was lost (default 15 s). */
  recheckIntervalMs?: number;
  /** Request times and expiry (default: the system clock). */
  clock?: Clock;
  /** Default: `permissionPolicy(config)`. */
  policy?: PermissionPolicy;
  /** The per-agent cap of waiting long-polls (default: 10 per agent, this router's own). */
  waits?: AgentWaits;
}

type DecisionEvent = Extract<PermissionEvent, { type: "decision" }>;

/**
 * `POST /api/hooks/classify` and `GET /api/hooks/decision/:requestId` (agent gateway token): the `/api/hooks`
 * router, mounted on its own in app.ts ahead of every other router and its JSON parsing.
 */
export function hookRoutes(deps: HookRoutesDeps): Router {
  const { db, bus, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const policy = deps.policy ?? permissionPolicy(deps.config);
  const waits = deps.waits ?? new AgentWaits();
  const recheckIntervalMs = deps.recheckIntervalMs ?? 15_000;
  const auth = agentTokenAuth(db, deps.config);
  const waiters = decisionWaiters(bus);
  const router = Router();
  router.post(HOOK_CLASSIFY_PATH, hookClassifyHandler({ ...deps, clock, policy }));

  router.get(
    "/api/hooks/decision/:requestId",
    auth,
    async (req: Request<{ requestId: string }>, res: Response) => {
      const { agentId } = tokenOwnerOf(res);
      const { wait = 0 } = parseBody(decisionWaitQuery, req.query);
      // Listening from the start: a client that leaves during the first read is noticed too.
      const clientGone = new AbortController();
      res.on("close", () => clientGone.abort());
      const { requestId } = req.params;
      const request = await findAgentPermission(db, agentId, requestId);
      if (!request) throw permissionNotFound();
      const cutoff = () => pendingCutoff({ clock, policy });
      const status = hookStatusOf(request, cutoff());
      if (status !== "pending" || wait === 0) {
        res.json(decisionJson(status));
        return;
      }
      const done = waits.enter(agentId);
      try {
        const final = await awaitDecision(
          { db, waiters, logger, recheckIntervalMs, cutoff },
          {
            agentId,
            requestId,
            waitMs: wait * 1000,
            expiresInMs: request.timestamp - cutoff(),
            signal: clientGone.signal,
          },
        );
        if (final && !res.headersSent) res.json(decisionJson(final));
      } finally {
        done();
      }
    },
  );

  return router;
}

export const HOOK_CLASSIFY_PATH = "/api/hooks/classify";

/**
 * `POST /api/hooks/classify`, the hot path: the JSON body (1 MB; else 413, bad JSON 400), the agent's
 * gateway token (401; 503 without DATA_ENCRYPTION_KEY), then `classifyHookCall`, and a failure answered in
 * the backend's error shape. The one handler of the route: `hookRoutes` mounts it, and the backend's
 * listener (app.ts) calls it ahead of Express, whose router costs more than the classification.
 */
export function hookClassifyHandler(
  deps: Pick<HookRoutesDeps, "db" | "bus" | "config" | "logger" | "clock" | "policy">,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { db, bus, logger } = deps;
  const service = {
    db,
    bus,
    logger,
    clock: deps.clock ?? systemClock,
    policy: deps.policy ?? permissionPolicy(deps.config),
  };
  const tokens = gatewayTokenStore(db, deps.config.DATA_ENCRYPTION_KEY);
  const parseJson = express.json({ limit: "1mb" });
  return (req, res) => {
    const fail = (err: unknown) => answerError(logger, err, req, res);
    parseJson(req, res, (parseError?: unknown) => {
      if (parseError) {
        fail(parseError);
        return;
      }
      agentOfBearer(tokens, req.headers.authorization)
        .then((owner) => classifyHookCall(service, owner, (req as { body?: unknown }).body))
        .then((answer) => sendJson(res, 200, answer), fail);
    });
  };
}

/**
 * `POST /api/hooks/classify` once the agent is authenticated: the body's fields (400; another agent's
 * `agentId` 403), then `classifyAndQueue`.
 */
function classifyHookCall(
  deps: PermissionServiceDeps,
  owner: TokenOwner,
  body: unknown,
): Promise<ClassifyAnswer> {
  const input = parseHookClassifyBody(body);
  if (input.agentId !== undefined && input.agentId !== owner.agentId) {
    throw notThisAgent();
  }
  return classifyAndQueue(deps, {
    prefix: "hook",
    agentId: owner.agentId,
    userId: owner.userId,
    toolName: input.toolName,
    toolInput: input.toolInput,
  });
}

/**
 * Waits up to `waitMs` for the request to be decided: woken by the bus's decision event (any process),
 * with a re-read right after subscribing (a decision made before the subscription) and every
 * `recheckIntervalMs` (an event lost while the bus reconnected). "pending" when the wait ends, "expired"
 * when the request expires first (in `expiresInMs`); null when `signal` aborts first (the client went
 * away). Every listener and timer is released when it settles.
 */
function awaitDecision(
  deps: {
    db: Database;
    waiters: DecisionWaiters;
    logger?: Logger;
    recheckIntervalMs: number;
    cutoff: () => number;
  },
  input: { agentId: string; requestId: string; waitMs: number; expiresInMs: number; signal: AbortSignal },
): Promise<HookStatus | null> {
  const { agentId, requestId, signal } = input;
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(null);
      return;
    }
    const cleanups: Array<() => void> = [];
    let settled = false;
    const settle = (status: HookStatus | null) => {
      if (settled) return;
      settled = true;
      for (const cleanup of cleanups) cleanup();
      resolve(status);
    };
    const reread = () => {
      findAgentPermission(deps.db, agentId, requestId).then(
        (row) => {
          const status = row ? hookStatusOf(row, deps.cutoff()) : "pending";
          if (status !== "pending") settle(status);
        },
        (err: unknown) => deps.logger?.warn({ err, requestId }, "re-reading a permission request failed"),
      );
    };
    cleanups.push(deps.waiters.add(requestId, (event) => settle(event.status)));
    const expires = input.expiresInMs <= input.waitMs;
    const deadline = setTimeout(
      () => settle(expires ? "expired" : "pending"),
      Math.max(0, Math.min(input.waitMs, input.expiresInMs)),
    );
    const recheck = setInterval(reread, deps.recheckIntervalMs);
    const onAbort = () => settle(null);
    signal.addEventListener("abort", onAbort);
    cleanups.push(
      () => clearTimeout(deadline),
      () => clearInterval(recheck),
      () => signal.removeEventListener("abort", onAbort),
    );
    reread();
  });
}

/** `{status, allow}`: allowed only once approved (`expired`: denied, like a rejection). */
function decisionJson(status: HookStatus): { status: HookStatus; allow: boolean } {
  return { status, allow: status === "approved" };
}

/**
 * One bus subscription for every waiting long-poll of this router (held only while someone waits),
 * dispatching decisions by request id.
 */
type DecisionWaiters = ReturnType<typeof decisionWaiters>;

function decisionWaiters(bus: PermissionBus) {
  const byRequest = new Map<string, Set<(event: DecisionEvent) => void>>();
  let unsubscribe: (() => void) | undefined;
  return {
    add(requestId: string, onDecision: (event: DecisionEvent) => void): () => void {
      let waiting = byRequest.get(requestId);
      if (!waiting) {
        waiting = new Set();
        byRequest.set(requestId, waiting);
      }
      waiting.add(onDecision);
      unsubscribe ??= bus.subscribe((event) => {
        if (event.type !== "decision") return;
        for (const wake of [...(byRequest.get(event.requestId) ?? [])]) wake(event);
      });
      const own = waiting;
      return () => {
        own.delete(onDecision);
        if (own.size === 0 && byRequest.get(requestId) === own) byRequest.delete(requestId);
        if (byRequest.size === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
        }
      };
    },
  };
}

/**
 * `Authorization: Bearer <gateway token>`: the agent (and its user) whose current token it is, on
 * `res.locals.tokenOwner`. 401 for a missing or unknown token; 503 while tokens cannot be read.
 */
function agentTokenAuth(db: Database, config: Pick<BackendConfig, "DATA_ENCRYPTION_KEY">): RequestHandler {
  const tokens = gatewayTokenStore(db, config.DATA_ENCRYPTION_KEY);
  return async (req, res, next) => {
    res.locals.tokenOwner = await agentOfBearer(tokens, req.get("authorization"));
    next();
  };
}

/** The agent (and user) of `Authorization: Bearer <gateway token>`: 401 without or with a wrong one. */
async function agentOfBearer(
  tokens: GatewayTokenStore,
  authorization: string | undefined,
): Promise<TokenOwner> {
  const presented = bearerCredential(authorization);
  if (presented === null) {
    throw unauthorized("Authorization: Bearer <agent gateway token> required");
  }
  if (!tokens.usable) {
    throw gatewayTokensUnusable();
  }
  const owner = await tokens.findOwner(presented);
  if (!owner) throw unauthorized("invalid agent gateway token");
  return owner;
}

function tokenOwnerOf(res: Response): TokenOwner {
  const owner = res.locals.tokenOwner as TokenOwner | undefined;
  if (!owner) throw new Error("agentTokenAuth must run before this handler");
  return owner;
}
