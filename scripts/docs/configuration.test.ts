import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configurationDoc, DOC_PATH, ROOT, unexplainedVariables } from "./configuration";

const envExample = readFileSync(join(ROOT, ".env.example"), "utf8");

describe("docs/configuration.md", () => {
  it("is what scripts/docs/configuration.ts makes of the env schemas and .env.example", () => {
    const written = readFileSync(join(ROOT, DOC_PATH), "utf8");
    expect(written, "stale: run `node --import tsx scripts/docs/configuration.ts`").toBe(
      configurationDoc(envExample),
    );
  });

  it("says what reads every variable .env.example documents", () => {
    expect(unexplainedVariables(envExample)).toEqual([]);
  });
});
