/**
 * The classification table (testing/table.ts): tier and deciding rule of every row, for an agent of the
 * local driver (its directory in the agents directory, which is protected) and for an agent container.
 */
import { describe, expect, it } from "vitest";
import { classifyCommand, classifyToolCall, DEFAULT_PATH_GUARD, pathGuard } from "./index";
import { TABLE, TOOL_TABLE } from "./testing/table";
import { localAgentWorkspace } from "./workspace";

const AGENTS_DIR = "/srv/app/.data/agents";
const LAYOUTS = [
  [
    "local driver",
    pathGuard({ protectedDirs: [AGENTS_DIR], workspace: localAgentWorkspace(AGENTS_DIR, "agt_self") }),
  ],
  ["agent container", DEFAULT_PATH_GUARD],
] as const;

describe.each(LAYOUTS)("classifyCommand table (%s)", (_layout, guard) => {
  it("has at least 200 rows", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(200);
  });

  it.each(TABLE)("%j is %s (%s)", (command, tier, ruleOrReason) => {
    const result = classifyCommand(command, guard);
    expect(result.tier).toBe(tier);
    const matched = result.rule === ruleOrReason || result.reason.includes(ruleOrReason);
    expect(matched, `rule ${result.rule}, reason ${result.reason}`).toBe(true);
  });
});

describe.each(LAYOUTS)("classifyToolCall table (OpenClaw's tools, %s)", (_layout, guard) => {
  it.each(TOOL_TABLE)("%s %j is %s (%s)", (toolName, toolInput, tier, ruleOrReason) => {
    const result = classifyToolCall(toolName, toolInput, guard);
    expect(result.tier).toBe(tier);
    const matched = result.rule === ruleOrReason || result.reason.includes(ruleOrReason);
    expect(matched, `rule ${result.rule}, reason ${result.reason}`).toBe(true);
  });

  // OpenClaw 2026.4.11's built-in tools (dist: tool-policy's core tool list, plus `pdf` and the xAI and
  // memory-core tools it offers): each has a row, so none is judged only as "unknown tool".
  const OPENCLAW_TOOLS = [
    "read",
    "write",
    "edit",
    "apply_patch",
    "exec",
    "process",
    "code_execution",
    "web_search",
    "web_fetch",
    "x_search",
    "memory_search",
    "memory_get",
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "session_status",
    "browser",
    "canvas",
    "message",
    "cron",
    "gateway",
    "nodes",
    "agents_list",
    "update_plan",
    "image",
    "image_generate",
    "music_generate",
    "video_generate",
    "tts",
    "pdf",
  ];

  it.each(OPENCLAW_TOOLS)("%s has a row and a rule of its own", (tool) => {
    const rows = TOOL_TABLE.filter(([name]) => name === tool);
    expect(rows.length).toBeGreaterThan(0);
    for (const [name, input] of rows) expect(classifyToolCall(name, input).rule).not.toBe("unknown-tool");
  });
});

describe("table coverage", () => {
  const SPEC_CATEGORIES = [
    // safe
    "read-only-file",
    "text-processing",
    "system-info",
    "network-read",
    "package-info",
    "vcs-read",
    "container-read",
    // dangerous
    "code-execution",
    "package-install",
    "package-run",
    "network-write",
    "vcs-write",
    "container-write",
    "remote-execution",
    "remote-copy",
    "root-write",
    "infrastructure-deploy",
    "unknown-command",
    // dangerous since issue #12
    "network-substitution",
    "network-file-data",
    "output-file",
    "in-place-edit",
    "environment-dump",
    "platform-state",
    // destructive
    "recursive-root-delete",
    "raw-disk-write",
    "disk-format",
    "privilege-escalation",
    "chmod-777",
    "ownership-change",
    "repository-deletion",
    "package-publication",
    "database-drop",
    "database-truncate",
    "database-delete-from",
    "infrastructure-destroy",
    "container-prune",
  ];

  it.each(SPEC_CATEGORIES)("some row is decided by %s", (rule) => {
    const decided = TABLE.filter(([command]) => classifyCommand(command).rule === rule);
    expect(decided.length).toBeGreaterThan(0);
  });
});
