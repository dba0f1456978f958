/** The buddies page (/dashboard/buddies) in real headless Chromium: hatch, feed, play, train, rename, delete. */
import { describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const stack = useDashboardStack({ withoutBackend: true });

describe("Buddies page", () => {
  it("hatches a buddy, shows its stats through feed, play and train, renames and deletes it", async () => {
    const { page, context } = await stack.signIn();
    await page.goto("/dashboard/buddies");
    await expect.poll(() => page.getByText("No buddies yet").count(), { timeout: 20_000 }).toBe(1);
    await expectAccessible(page);

    const hatch = page.getByRole("form", { name: "Hatch a buddy" });
    await hatch.getByLabel("Name").fill("Pip");
    await hatch.getByLabel("Kind").selectOption("dragon");
    await hatch.getByRole("button", { name: "Hatch" }).click();
    const card = page.getByTestId("buddy-Pip");
    await expect.poll(() => card.getByTestId("energy").textContent()).toBe("50 / 100");
    expect(await card.textContent()).toContain("A level 1 dragon");

    await page.getByRole("button", { name: "Feed Pip" }).click();
    await expect.poll(() => card.getByTestId("xp").textContent()).toBe("10");
    expect(await card.getByTestId("energy").textContent()).toBe("70 / 100");
    expect(await card.getByTestId("happiness").textContent()).toBe("60 / 100");

    await page.getByRole("button", { name: "Play with Pip" }).click();
    await expect.poll(() => card.getByTestId("xp").textContent()).toBe("35");
    expect(await card.getByTestId("happiness").textContent()).toBe("75 / 100");

    await page.getByRole("button", { name: "Train Pip" }).click();
    await expect.poll(() => card.getByTestId("xp").textContent()).toBe("85");
    expect(await card.getByTestId("energy").textContent()).toBe("40 / 100");
    await page.getByRole("button", { name: "Train Pip" }).click();
    await expect.poll(() => card.getByTestId("level").textContent()).toBe("2");
    expect(await page.getByRole("status").first().textContent()).toContain("Pip reached level 2!");
    // 10 energy left: training is disabled.
    expect(await page.getByRole("button", { name: "Train Pip" }).isDisabled()).toBe(true);
    await expectAccessible(page);

    const rename = page.getByRole("form", { name: "Rename Pip" });
    await rename.getByLabel("New name for Pip").fill("Ember");
    await rename.getByRole("button", { name: "Rename" }).click();
    const renamed = page.getByTestId("buddy-Ember");
    await expect.poll(() => renamed.count()).toBe(1);
    expect(await renamed.getByTestId("xp").textContent()).toBe("135");

    await page.getByRole("button", { name: "Delete Ember" }).click();
    await page.getByRole("button", { name: "Delete buddy" }).click();
    await expect.poll(() => page.getByText("No buddies yet").count()).toBe(1);
    await context.close();
  }, 120_000);
});
