/** The Project context page (admins) in real Chromium against the built web app and a fixture tree. */
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const root = await mkdtemp(join(tmpdir(), "svc-context-e2e-"));
await mkdir(join(root, "web/lib"), { recursive: true });
await mkdir(join(root, "backend/src"), { recursive: true });
await writeFile(join(root, "web/lib/a.ts"), "/** The web library. */\nexport function webThing() {}\n");
await writeFile(join(root, "backend/src/b.ts"), "export const backendThing = 1;\n");
const stack = useDashboardStack({ withoutBackend: true, webEnv: { INIT_DEEP_ROOT: root } });
afterAll(() => rm(root, { recursive: true, force: true }));

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe("Project context page", () => {
  it("an admin sees the status, previews with a dry run, then generates", async () => {
    const { page, context, user } = await stack.signIn();
    await webContext().db.update(users).set({ isAdmin: true }).where(eq(users.id, user.id));
    try {
      await page.goto("/dashboard/context");
      expect(await page.getByRole("link", { name: "Project context" }).count()).toBe(1);
      const table = page.getByTestId("context-directories");
      await expect.poll(() => table.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await table.locator("tbody tr").allTextContents()).toEqual([
        "web/libmissing",
        "backend/srcmissing",
      ]);
      expect(await page.getByTestId("context-all").textContent()).toContain("some missing");
      await expectAccessible(page);

      await page.getByRole("button", { name: "Dry run" }).click();
      const summary = page.getByTestId("context-summary");
      await expect.poll(() => summary.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await summary.textContent()).toBe(
        "Dry run, nothing written: 2 directories, 2 would be generated, 0 skipped, 0 errors.",
      );
      expect(await exists(join(root, "web/lib/AGENTS.md"))).toBe(false);

      await page.getByRole("button", { name: "Generate" }).click();
      await expect
        .poll(() => summary.textContent(), { timeout: 15_000 })
        .toBe("2 directories, 2 generated, 0 skipped, 0 errors.");
      expect(await readFile(join(root, "web/lib/AGENTS.md"), "utf8")).toContain("- Exports: `webThing`");
      await expect.poll(() => page.getByTestId("context-all").textContent()).toContain("all generated");
      await expectAccessible(page);

      await page.getByLabel("Path (inside the project; empty: the whole project)").fill("../..");
      await page.getByRole("button", { name: "Generate" }).click();
      await expect
        .poll(() => page.locator("#path-error").textContent(), { timeout: 15_000 })
        .toBe("Path must stay inside the project root");
    } finally {
      await context.close();
    }
  }, 120_000);

  it("is not in a non-admin's navigation, and the page says it is for administrators", async () => {
    const { page, context } = await stack.signIn();
    try {
      await page.goto("/dashboard/context");
      await expect
        .poll(() => page.getByTestId("context-admin-only").isVisible(), { timeout: 15_000 })
        .toBe(true);
      expect(await page.getByRole("link", { name: "Project context" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Generate" }).count()).toBe(0);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 60_000);
});
