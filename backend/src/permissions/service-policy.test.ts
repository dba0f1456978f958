/** Which workspace the classifier judges an agent's calls against, by hosting driver (service.ts). */
import { describe, expect, it } from "vitest";
import { classifyToolCall } from "./classifier/index";
import { permissionPolicy } from "./service";

const AGENTS_DIR = "/srv/app/.data/agents";
const tier = (guard: ReturnType<ReturnType<typeof permissionPolicy>["guardFor"]>, path: string) =>
  classifyToolCall("read", { path }, guard).tier;

describe("permissionPolicy().guardFor", () => {
  it("local driver: the agent's directory in LOCAL_AGENTS_DIR, its workspace the working directory", () => {
    const policy = permissionPolicy({ HOSTING_PROVIDER: "local", LOCAL_AGENTS_DIR: AGENTS_DIR });
    const guard = policy.guardFor("agt_a");
    expect(policy.guardFor("agt_a")).toBe(guard);
    expect(tier(guard, "notes.txt")).toBe("safe");
    expect(tier(guard, `${AGENTS_DIR}/agt_a/state/workspace/notes.txt`)).toBe("safe");
    expect(tier(guard, `${AGENTS_DIR}/agt_a/service.json`)).toBe("dangerous");
    expect(tier(guard, `${AGENTS_DIR}/agt_b/state/workspace/notes.txt`)).toBe("dangerous");
    expect(tier(guard, "/data/openclaw/workspace/notes.txt")).toBe("dangerous");
    // An id that could leave the agents directory gets no directory of its own there.
    expect(tier(policy.guardFor("../agt_b"), `${AGENTS_DIR}/agt_b/state/workspace/notes.txt`)).toBe(
      "dangerous",
    );
  });

  it.each(["docker", "railway"] as const)(
    "%s: the agent image's layout, whatever LOCAL_AGENTS_DIR says",
    (provider) => {
      const guard = permissionPolicy({ HOSTING_PROVIDER: provider, LOCAL_AGENTS_DIR: AGENTS_DIR }).guardFor(
        "agt_a",
      );
      expect(tier(guard, "notes.txt")).toBe("safe");
      expect(tier(guard, "/data/openclaw/workspace/notes.txt")).toBe("safe");
      expect(tier(guard, "/data/openclaw/openclaw.json")).toBe("dangerous");
      expect(tier(guard, `${AGENTS_DIR}/agt_a/state/workspace/notes.txt`)).toBe("dangerous");
    },
  );
});
