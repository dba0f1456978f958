import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

// SVC_RUN_FIXTURES=1 runs only the deliberately failing fixtures (used by the reporter's own test).
const fixturesOnly = process.env.SVC_RUN_FIXTURES === "1";

export default defineConfig({
  resolve: { alias: { "@/": `${root}web/` } },
  test: {
    root,
    include: fixturesOnly
      ? ["common/testing/fixtures/*.fixture.ts"]
      : ["{common,drizzle,backend,wrapper,summarizer,web,scripts}/**/*.test.{ts,tsx}"],
    exclude: ["**/node_modules/**", "**/.next/**", "**/.data/**"],
    globalSetup: ["common/testing/global-setup.ts"],
    setupFiles: ["common/testing/database-per-file.ts"],
    pool: "forks",
    testTimeout: 30_000,
    // expect.poll waits for a condition (a page hydrating, a row appearing); its 1 s default is a speed
    // assumption that a loaded machine breaks. The ceiling only matters when the condition never comes.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
    reporters: ["default", "./common/testing/summary-reporter.ts"],
  },
});
