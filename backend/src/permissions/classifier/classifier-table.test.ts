/** The classification table (testing/table.ts): tier and deciding rule of every row. */
import { describe, expect, it } from "vitest";
import { classifyCommand } from "./index";
import { TABLE } from "./testing/table";

describe("classifyCommand table", () => {
  it("has at least 200 rows", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(200);
  });

  it.each(TABLE)("%j is %s (%s)", (command, tier, ruleOrReason) => {
    const result = classifyCommand(command);
    expect(result.tier).toBe(tier);
    const matched = result.rule === ruleOrReason || result.reason.includes(ruleOrReason);
    expect(matched, `rule ${result.rule}, reason ${result.reason}`).toBe(true);
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
    // dangerous beyond the spec (issue #12)
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
