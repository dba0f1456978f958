/** Tool-level rules and the classifier's limits. */
import { describe, expect, it } from "vitest";
import { MAX_COMMAND_LENGTH, MAX_DEPTH } from "./engine";
import { classifyCommand, classifyToolCall, pathGuard } from "./index";
import { singleQuote } from "./testing/corpus";
import { localAgentWorkspace } from "./workspace";

describe("classifyToolCall", () => {
  it.each(["bash", "exec", "shell", "Bash", "EXEC", "Shell"])("%s is classified by its command", (tool) => {
    expect(classifyToolCall(tool, { command: "ls -la" })).toEqual({
      tier: "safe",
      rule: "read-only-file",
      reason: "read-only file: ls",
    });
    expect(classifyToolCall(tool, { command: "npm install" })).toMatchObject({
      tier: "dangerous",
      rule: "package-install",
    });
    expect(classifyToolCall(tool, { command: "rm -rf /" })).toMatchObject({
      tier: "destructive",
      reason: "recursive delete of /",
    });
  });

  it.each([
    ["no input", undefined],
    ["null input", null],
    ["a string input", "ls"],
    ["no command", { cmd: "ls" }],
    ["a numeric command", { command: 42 }],
    ["an array command", { command: ["ls"] }],
  ])("bash with %s is dangerous", (_label, input) => {
    expect(classifyToolCall("bash", input)).toMatchObject({ tier: "dangerous", rule: "missing-command" });
  });

  it.each([
    [{ path: ".env" }],
    [{ path: "app/.env" }],
    [{ path: ".env.production" }],
    [{ file_path: "/home/u/project/.ENV" }],
    [{ filePath: "~/.ssh/authorized_keys" }],
    [{ path: "/home/u/.SSH/config" }],
    [{ path: "config/credentials.json" }],
    [{ path: "/root/.aws/credentials" }],
    [{ path: "src/../.env" }],
    [{ path: "a/b/../../.ssh/id_rsa" }],
    [{ path: "C:\\Users\\u\\.ssh\\id_rsa" }],
    [{ path: "notes.txt", file_path: ".env" }],
  ])("write to a sensitive path is dangerous: %j", (input) => {
    for (const tool of ["write", "file_write", "Write", "FILE_WRITE"]) {
      expect(classifyToolCall(tool, input)).toMatchObject({
        tier: "dangerous",
        rule: "sensitive-file-write",
      });
    }
  });

  it.each([
    [{ path: "src/app.ts" }, "file write: src/app.ts"],
    [{ filePath: "docs/environment.md" }, "file write: docs/environment.md"],
    [{ path: ".ssh/../notes.txt" }, "file write: .ssh/../notes.txt"],
    [{ path: "env.ts" }, "file write: env.ts"],
    [{ file_path: "/data/openclaw/workspace/notes.txt" }, "file write: /data/openclaw/workspace/notes.txt"],
  ])("write in the agent's workspace is safe: %j", (input, reason) => {
    expect(classifyToolCall("write", input)).toEqual({ tier: "safe", rule: "file-write", reason });
  });

  // Issue #24 item 12: what a shell redirection may not write, the write tools may not either.
  it.each([
    [{ file_path: "/tmp/out.txt" }, "write-outside-workspace"],
    [{ path: "~/.bashrc" }, "write-outside-workspace"],
    [{ path: "../openclaw.json" }, "write-outside-workspace"],
    [{ path: "/etc/passwd" }, "root-write"],
    [{ path: "/etc/cron.d/x" }, "root-write"],
    [{ path: ".git/config" }, "configuration-write"],
    [{ path: "sub/.git/hooks/pre-commit" }, "configuration-write"],
    [{ path: ".npmrc" }, "configuration-write"],
    [{ path: "-rf" }, "option-like-name"],
  ])("write outside the workspace, or of a configuration file, is dangerous: %j", (input, rule) => {
    for (const tool of ["write", "file_write", "edit"]) {
      expect(classifyToolCall(tool, input)).toMatchObject({ tier: "dangerous", rule });
    }
    const path = Object.values(input)[0];
    expect(
      classifyToolCall("apply_patch", { input: `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch` }),
    ).toMatchObject({ tier: "dangerous", rule });
    expect(classifyCommand(`echo x > ${path}`).tier).toBe("dangerous");
  });

  it("write without a path is dangerous", () => {
    expect(classifyToolCall("write", { content: "x" })).toMatchObject({
      tier: "dangerous",
      rule: "missing-path",
    });
    expect(classifyToolCall("file_write", null)).toMatchObject({ tier: "dangerous", rule: "missing-path" });
  });

  it.each(["read", "file_read", "Read", "FILE_READ"])("%s is safe, even for sensitive files", (tool) => {
    expect(classifyToolCall(tool, { path: ".env" })).toEqual({
      tier: "safe",
      rule: "file-read",
      reason: "file read",
    });
    expect(classifyToolCall(tool, {})).toMatchObject({ tier: "safe" });
  });

  it.each([
    [".data/secrets.json", "platform state read: .data/secrets.json"],
    [
      "/work/main/.data/agents/agt_b/service.json",
      "platform state read: /work/main/.data/agents/agt_b/service.json",
    ],
    ["~/../agt_b/service.json", "platform state read: ~/../agt_b/service.json"],
    ["/proc/self/environ", "environment dump: /proc/self/environ"],
  ])("read and write of a protected path (%s) are dangerous", (path, reason) => {
    for (const tool of ["read", "file_read", "write", "file_write"]) {
      expect(classifyToolCall(tool, { path })).toEqual({
        tier: "dangerous",
        rule: reason.startsWith("environment") ? "environment-dump" : "platform-state",
        reason,
      });
    }
    expect(classifyToolCall("bash", { command: `cat ${path}` }).tier).toBe("dangerous");
  });

  it("the configured agents directory (LOCAL_AGENTS_DIR) is protected wherever it is", () => {
    const guard = pathGuard({
      protectedDirs: ["/srv/svc/agents"],
      workspace: localAgentWorkspace("/srv/svc/agents", "agt_a"),
    });
    const inside = "/srv/svc/agents/agt_b/service.json";
    expect(classifyToolCall("read", { path: inside }, guard)).toEqual({
      tier: "dangerous",
      rule: "platform-state",
      reason: `platform state read: ${inside}`,
    });
    expect(classifyToolCall("bash", { command: "ls /srv/svc/agents" }, guard).rule).toBe("platform-state");
    expect(classifyToolCall("bash", { command: "cat /srv/svc/*/agt_b/state/x" }, guard).rule).toBe(
      "platform-state",
    );
    // The asking agent's own directory is not protected from it (literally: no glob widens that).
    expect(
      classifyToolCall("read", { path: "/srv/svc/agents/agt_a/state/workspace/a.txt" }, guard),
    ).toMatchObject({ tier: "safe" });
    expect(classifyToolCall("read", { path: "a.txt" }, guard)).toMatchObject({ tier: "safe" });
    expect(
      classifyToolCall("read", { path: "/srv/svc/agents/agt_a/../agt_b/service.json" }, guard),
    ).toMatchObject({ rule: "platform-state" });
    expect(
      classifyToolCall("bash", { command: "cat /srv/svc/agents/agt_*/service.json" }, guard),
    ).toMatchObject({ rule: "platform-state" });
    // … but the platform's files in it are: its service record, its log, the runtime's configuration.
    for (const path of [
      "../../service.json",
      "../../wrapper.log",
      "../openclaw.json",
      "../platform/device.json",
    ]) {
      expect(classifyToolCall("read", { path }, guard)).toMatchObject({ rule: "platform-state" });
    }
    // Without that configuration, or next to it, a path outside the agent's directory, not the platform's.
    expect(classifyToolCall("read", { path: inside })).toMatchObject({ rule: "outside-agent-directory" });
    expect(classifyToolCall("read", { path: "/srv/svc/agents-notes.txt" }, guard)).toMatchObject({
      rule: "outside-agent-directory",
    });
  });

  it.each(["bash2", "", " bash", "memory_store", "web-fetch", "constructor", "__proto__"])(
    "unknown tool %j is dangerous",
    (tool) => {
      expect(classifyToolCall(tool, { command: "ls" })).toMatchObject({
        tier: "dangerous",
        rule: "unknown-tool",
      });
    },
  );

  it("a tool name that is not a string is an unknown tool", () => {
    expect(classifyToolCall(42 as unknown as string, {})).toMatchObject({
      tier: "dangerous",
      rule: "unknown-tool",
    });
  });

  it("returns a fresh object each time (callers may keep or change it)", () => {
    const first = classifyCommand("ls");
    first.tier = "destructive";
    expect(classifyCommand("ls").tier).toBe("safe");
  });
});

describe("limits", () => {
  function nestBashC(command: string, levels: number): string {
    let line = command;
    for (let i = 0; i < levels; i++) line = `bash -c ${singleQuote(line)}`;
    return line;
  }

  it(`classifies through ${MAX_DEPTH} levels of bash -c`, () => {
    expect(classifyCommand(nestBashC("rm -rf /", MAX_DEPTH))).toMatchObject({ tier: "destructive" });
  });

  it("deeper nesting is dangerous with a reason", () => {
    expect(classifyCommand(nestBashC("ls", MAX_DEPTH + 1))).toMatchObject({
      tier: "dangerous",
      rule: "nesting-too-deep",
      reason: `nesting too deep: more than ${MAX_DEPTH} levels`,
    });
  });

  it("deep substitutions are bounded the same way", () => {
    const nested = `${"echo $(".repeat(MAX_DEPTH + 2)}ls${")".repeat(MAX_DEPTH + 2)}`;
    expect(classifyCommand(nested)).toMatchObject({ tier: "dangerous", rule: "nesting-too-deep" });
  });

  it("a destructive part next to a too-deep part still wins", () => {
    expect(classifyCommand(`${nestBashC("ls", MAX_DEPTH + 1)}; rm -rf /`)).toMatchObject({
      tier: "destructive",
    });
  });

  it("a command longer than the limit is dangerous", () => {
    expect(classifyCommand(`echo ${"a".repeat(MAX_COMMAND_LENGTH)}`)).toMatchObject({
      tier: "dangerous",
      rule: "unparseable-command",
    });
  });

  it("a long but legal command is classified", () => {
    const body = "line of text\n".repeat(2_000);
    expect(classifyCommand(`cat > notes.txt <<'EOF'\n${body}EOF\nsudo ls`)).toMatchObject({
      tier: "destructive",
    });
  });

  it("many unterminated substitutions stay within the scan budget", () => {
    const result = classifyCommand("$(".repeat(20_000));
    expect(result.tier).toBe("dangerous");
  });

  it("thousands of wrappers are bounded", () => {
    expect(classifyCommand(`${"nohup ".repeat(5_000)}ls`)).toMatchObject({
      tier: "dangerous",
      rule: "nesting-too-deep",
    });
  });

  it("a non-string command is dangerous", () => {
    expect(classifyCommand(undefined as unknown as string)).toMatchObject({ tier: "dangerous" });
  });
});
