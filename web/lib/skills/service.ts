/**
 * Skill MCP servers: a user activates a configured skill (the platform connects to
 * its MCP server, lists the tools and records the activation in PostgreSQL), calls its tools while it is
 * active, and deactivates it. An activation expires after 30 idle minutes; a user keeps at most 10, the least
 * recently used going first. Every query is scoped to the user.
 */

import { isHttpError } from "@svc/common";
import { type SkillActivation, skillActivations } from "@svc/db/schema";
import { and, asc, desc, eq, gt, inArray, lte, sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { readJson } from "../infra/http/body";
import { findSkill, type SkillDefinition, skillCatalog } from "./catalog";
import {
  activationFailed,
  invalidToolParameters,
  skillNotActive,
  toolCallBodyRefused,
  toolCallFailed,
  toolTransportFailed,
  unknownSkill,
} from "./errors";
import { type ActivationAnswer, type SkillSummary, type ToolCallAnswer, toolCallBody } from "./inputs";
import { callMcpTool, describeMcpServer, McpRequestError } from "./mcp-client";
import { countToolCall } from "./metrics";

/**
 * Activations this process saw live within this window: their check-and-touch runs alongside the tool call
 * instead of before it (the answer still waits for both, so an activation gone meanwhile, e.g. deactivated
 * through another process, still answers 400; only that tool call was made for nothing).
 */
export const RECENTLY_ACTIVE_MS = 5_000;
const RECENT_MAX = 10_000;
const RECENT = Symbol.for("svc.web.skills.recently-active");
type WithRecent = typeof globalThis & { [RECENT]?: Map<string, number> };
const recentHolder = globalThis as WithRecent;
recentHolder[RECENT] ??= new Map<string, number>();
const recentlyActive = recentHolder[RECENT];
const recentKey = (userId: string, skillId: string) => `${userId}\n${skillId}`;
function markRecentlyActive(key: string, at: number): void {
  recentlyActive.delete(key);
  recentlyActive.set(key, at);
  if (recentlyActive.size > RECENT_MAX) recentlyActive.delete(recentlyActive.keys().next().value as string);
}

/** An activation unused this long is gone. */
export const SKILL_IDLE_MS = 30 * 60 * 1000;
/** Active skills per user; activating one more drops the least recently used. */
export const MAX_ACTIVE_SKILLS = 10;

type Ctx = Pick<WebContext, "db" | "config" | "clock">;

const idleCutoff = (ctx: Ctx) => new Date(ctx.clock.now().getTime() - SKILL_IDLE_MS);

/** The user's live (not idle) activation of the skill. */
const liveActivation = (ctx: Ctx, userId: string, skillId: string) =>
  and(
    eq(skillActivations.userId, userId),
    eq(skillActivations.skillId, skillId),
    gt(skillActivations.lastUsedAt, idleCutoff(ctx)),
  );

function requireSkill(ctx: Ctx, skillId: string): SkillDefinition {
  const skill = findSkill(ctx.config, skillId);
  if (!skill) throw unknownSkill(skillId);
  return skill;
}

const mcpOf = (row: SkillActivation) => ({
  name: row.serverName,
  version: row.serverVersion,
  tools: row.tools,
  startedAt: row.startedAt.toISOString(),
  lastUsedAt: row.lastUsedAt.toISOString(),
});

/** Every configured skill with the user's live activation of it (URLs and keys never leave the server). */
export async function listSkills(ctx: Ctx, userId: string): Promise<SkillSummary[]> {
  const rows = await ctx.db
    .select()
    .from(skillActivations)
    .where(and(eq(skillActivations.userId, userId), gt(skillActivations.lastUsedAt, idleCutoff(ctx))));
  const active = new Map(rows.map((row) => [row.skillId, row]));
  return skillCatalog(ctx.config).map((skill) => {
    const row = active.get(skill.id);
    return {
      id: skill.id,
      label: skill.label,
      builtIn: skill.builtIn,
      active: Boolean(row),
      mcp: row ? mcpOf(row) : null,
    };
  });
}

/**
 * Connects to the skill's server (or reuses this process's connection), lists its tools and records the
 * activation; then drops the user's expired activations and, past 10, the least recently used ones.
 */
export async function activateSkill(ctx: Ctx, userId: string, skillId: string): Promise<ActivationAnswer> {
  const skill = requireSkill(ctx, skillId);
  let server: Awaited<ReturnType<typeof describeMcpServer>>;
  try {
    server = await describeMcpServer(skill);
  } catch (err) {
    throw activationFailed(skillId, (err as Error).message);
  }
  const now = ctx.clock.now();
  const values = {
    userId,
    skillId,
    serverName: server.name,
    serverVersion: server.version,
    tools: server.tools,
    startedAt: now,
    lastUsedAt: now,
  };
  await ctx.db.transaction(async (tx) => {
    // One activation at a time per user, so two at once cannot both keep an 11th.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`skills:${userId}`}))`);
    await tx
      .insert(skillActivations)
      .values(values)
      .onConflictDoUpdate({ target: [skillActivations.userId, skillActivations.skillId], set: values });
    await tx
      .delete(skillActivations)
      .where(and(eq(skillActivations.userId, userId), lte(skillActivations.lastUsedAt, idleCutoff(ctx))));
    const beyond = await tx
      .select({ skillId: skillActivations.skillId })
      .from(skillActivations)
      .where(eq(skillActivations.userId, userId))
      .orderBy(desc(skillActivations.lastUsedAt), asc(skillActivations.skillId))
      .offset(MAX_ACTIVE_SKILLS);
    for (const b of beyond) recentlyActive.delete(recentKey(userId, b.skillId));
    if (beyond.length > 0) {
      await tx.delete(skillActivations).where(
        and(
          eq(skillActivations.userId, userId),
          inArray(
            skillActivations.skillId,
            beyond.map((b) => b.skillId),
          ),
        ),
      );
    }
  });
  return {
    success: true,
    skillId,
    mcp: { name: server.name, version: server.version, tools: server.tools, startedAt: now.toISOString() },
  };
}

/** Ends the user's activation of the skill (the process's connection stays for other users). */
export async function deactivateSkill(
  ctx: Ctx,
  userId: string,
  skillId: string,
): Promise<{ success: true; skillId: string; message: string }> {
  requireSkill(ctx, skillId);
  recentlyActive.delete(recentKey(userId, skillId));
  const deleted = await ctx.db
    .delete(skillActivations)
    .where(liveActivation(ctx, userId, skillId))
    .returning({ skillId: skillActivations.skillId });
  // An expired row is as good as gone; clear it too.
  await ctx.db
    .delete(skillActivations)
    .where(and(eq(skillActivations.userId, userId), eq(skillActivations.skillId, skillId)));
  return {
    success: true,
    skillId,
    message: deleted.length > 0 ? `skill "${skillId}" deactivated` : `skill "${skillId}" was not active`,
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The tool's arguments: the body's `parameters` object when that is all it holds, else the body itself. */
export function toolArguments(body: Record<string, unknown>): Record<string, unknown> | null {
  const keys = Object.keys(body);
  if (keys.length === 1 && keys[0] === "parameters") {
    return isPlainObject(body.parameters) ? body.parameters : null;
  }
  return body;
}

/** The text of a tool's content blocks (what an error result says). */
function textOf(content: unknown[]): string {
  const texts = content
    .map((block) => (isPlainObject(block) && typeof block.text === "string" ? block.text : null))
    .filter((t): t is string => t !== null);
  return texts.length > 0 ? texts.join("\n") : "the tool reported an error";
}

/** The call's body (empty stands for `{}`); a refused one answers in the call's shape, `{skillId, toolName, success: false, error, code}`. */
async function readToolCallBody(request: Request, skillId: string, toolName: string) {
  try {
    return await readJson(request, toolCallBody, { optional: true });
  } catch (err) {
    throw isHttpError(err) ? toolCallBodyRefused(skillId, toolName, err) : err;
  }
}

/**
 * Calls a tool of an active skill (the call counts as use): an unknown skill is 404 before the body is read;
 * a bad body 400. `isError` from the tool: 400 with its text; the server's JSON-RPC error: 400; no usable
 * answer (unreachable, 30 s, over 1 MB): 500.
 */
export async function callSkillTool(
  ctx: Ctx,
  userId: string,
  skillId: string,
  toolName: string,
  request: Request,
): Promise<ToolCallAnswer> {
  const skill = requireSkill(ctx, skillId);
  const args = toolArguments(await readToolCallBody(request, skillId, toolName));
  if (!args) throw invalidToolParameters(skillId, toolName, "parameters: must be an object");
  const now = ctx.clock.now();
  const touch = async () => {
    const rows = await ctx.db
      .update(skillActivations)
      .set({ lastUsedAt: now })
      .where(liveActivation(ctx, userId, skillId))
      .returning({ skillId: skillActivations.skillId });
    return rows.length > 0;
  };
  const call = () =>
    callMcpTool(skill, toolName, args).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  const key = recentKey(userId, skillId);
  const seen = recentlyActive.get(key);
  let outcome: Awaited<ReturnType<typeof call>>;
  if (seen !== undefined && now.getTime() - seen >= 0 && now.getTime() - seen < RECENTLY_ACTIVE_MS) {
    const [active, answer] = await Promise.all([touch(), call()]);
    if (!active) {
      recentlyActive.delete(key);
      countToolCall(skillId, "not_active");
      throw skillNotActive(skillId, toolName);
    }
    outcome = answer;
  } else {
    if (!(await touch())) {
      countToolCall(skillId, "not_active");
      throw skillNotActive(skillId, toolName);
    }
    outcome = await call();
  }
  markRecentlyActive(key, now.getTime());
  if ("error" in outcome) {
    const message = (outcome.error as Error).message;
    if (outcome.error instanceof McpRequestError) {
      countToolCall(skillId, "tool_error");
      throw toolCallFailed(skillId, toolName, message);
    }
    countToolCall(skillId, "transport_error");
    throw toolTransportFailed(skillId, toolName, message);
  }
  const result = outcome.value;
  countToolCall(skillId, result.isError ? "tool_error" : "ok");
  if (result.isError) throw toolCallFailed(skillId, toolName, textOf(result.content));
  return { skillId, toolName, success: true, result: result.content };
}
