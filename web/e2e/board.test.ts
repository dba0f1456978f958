/**
 * The job board page (/dashboard/board) in real headless Chromium against the built web app: a company
 * and a draft listing created, published, applied to and claimed by another user's agent, the claim read
 * by the owner, a post written; drafts never reach another user's board nor, moved back to draft, an
 * applicant's list of applications. Publishing shows the job under "Open jobs" at once, a claimed job cannot be
 * claimed again by that agent, and agents are named, never shown by id (issue 26 item 6). Accessibility at
 * each step.
 */
import { newId } from "@svc/common";
import { agents, jobListings } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack({ withoutBackend: true });

describe("Job board page", () => {
  it("create a company and a listing, publish it; another user applies, claims with an agent and posts", async () => {
    const owner = await stack.signIn();
    const page = owner.page;
    await page.goto("/dashboard/board");
    await expect
      .poll(() => page.getByTestId("companies").textContent(), { timeout: 20_000 })
      .toContain("No companies yet");
    await expectAccessible(page);

    const companyForm = page.getByRole("form", { name: "Create a company" });
    await companyForm.getByLabel("Company name").fill("Acme Robotics");
    await companyForm.getByLabel("Slug").fill("acme-robotics-e2e");
    await companyForm.getByLabel("Website").fill("https://acme.example");
    await companyForm.getByRole("button", { name: "Create company" }).click();
    await expect.poll(() => page.getByTestId("companies").textContent()).toContain("Acme Robotics");

    const listingForm = page.getByRole("form", { name: "Create a listing" });
    for (const [label, value] of [
      ["Title", "Rust wizard"],
      ["Description", "Build agents in Rust"],
      ["Role type", "backend"],
      ["Seniority", "senior"],
      ["Contract type", "full-time"],
      ["Minimum salary", "200"],
      ["Maximum salary", "100"],
      ["Apply URL", "https://acme.example/jobs/rust"],
    ]) {
      await listingForm.getByLabel(label, { exact: true }).fill(value);
    }
    await listingForm.getByRole("button", { name: "Create draft" }).click();
    // The server's rule shows under its field.
    await expect
      .poll(() => listingForm.locator("#listing-salaryMin-error").textContent())
      .toBe("Minimum salary must not exceed the maximum salary");
    await listingForm.getByLabel("Maximum salary").fill("300");
    await listingForm.getByRole("button", { name: "Create draft" }).click();
    const mine = page.getByTestId("my-listings");
    await expect.poll(() => mine.textContent()).toContain("Rust wizard");
    expect(await mine.textContent()).toContain("draft");
    await expectAccessible(page);

    // A draft is not on anybody else's board.
    const applicant = await stack.signIn();
    await applicant.page.goto("/dashboard/board");
    await expect
      .poll(() => applicant.page.getByTestId("board").textContent(), { timeout: 20_000 })
      .toContain("No open jobs match");

    // Published: it is an open job at once, on the owner's own board too, with no reload (issue 26 item 6).
    expect(await page.getByTestId("board").textContent()).not.toContain("Rust wizard");
    await page.getByRole("button", { name: "Publish Rust wizard" }).click();
    await expect.poll(() => mine.textContent()).toContain("active");
    expect(await page.getByRole("button", { name: "Close Rust wizard" }).count()).toBe(1);
    await expect.poll(() => page.getByTestId("board").textContent()).toContain("Rust wizard");

    // The applicant sees it, searches for it, applies once, and claims it with its agent.
    const agentId = newId("agt");
    await webContext().db.insert(agents).values({ id: agentId, userId: applicant.user.id, name: "worker" });
    const other = applicant.page;
    await other.reload();
    const search = other.getByRole("form", { name: "Search jobs" });
    await hydrated(search);
    await search.getByLabel("Search title and description").fill("RUST");
    await search.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => other.getByTestId("board").textContent()).toContain("Rust wizard");
    await other.getByRole("button", { name: "Apply to Rust wizard" }).click();
    await expect.poll(() => other.getByTestId("applications").textContent()).toContain("Rust wizard");
    expect(await other.getByRole("button", { name: "Applied to Rust wizard" }).isDisabled()).toBe(true);
    // The agents are offered by name; once one has claimed the job, it cannot claim it again (no 409).
    const chooser = other.getByLabel("Agent that claims jobs");
    expect(await chooser.locator("option").allTextContents()).toEqual(["worker"]);
    await chooser.selectOption(agentId);
    await other.getByRole("button", { name: "Claim Rust wizard with worker" }).click();
    await expect
      .poll(() => other.getByTestId("browse-card").getByRole("status").textContent())
      .toContain('worker claimed "Rust wizard"');
    const claimed = other.getByRole("button", { name: "worker claimed Rust wizard" });
    await expect.poll(() => claimed.isDisabled()).toBe(true);
    expect(await claimed.textContent()).toBe("Claimed");
    expect(await other.getByTestId("browse-card").getByRole("alert").count()).toBe(0);
    // Still claimed after a reload: the page reads the agents' claims.
    await other.reload();
    await expect.poll(() => claimed.isDisabled(), { timeout: 20_000 }).toBe(true);
    await expectAccessible(other);

    const postForm = other.getByRole("form", { name: "Write a post" });
    await postForm.getByLabel("Post").fill("Claimed my first job");
    await postForm.getByLabel("Author").selectOption(agentId);
    await postForm.getByRole("button", { name: "Post" }).click();
    await expect.poll(() => other.getByTestId("posts").textContent()).toContain("Claimed my first job");
    expect(await other.getByTestId("posts").textContent()).toContain("worker");
    expect(await other.getByTestId("posts").textContent()).not.toContain(agentId);
    await expectAccessible(other);

    // The owner reads the claim and the counts.
    await page.reload();
    await page.getByRole("button", { name: "Claims of Rust wizard" }).click();
    await expect.poll(() => page.getByTestId("claims").textContent()).toContain("worker");
    expect(await page.getByTestId("claims").textContent()).not.toContain(agentId);
    await page.getByRole("button", { name: "Close Rust wizard" }).click();
    await expect.poll(() => mine.textContent()).toContain("closed");
    await expectAccessible(page);

    // Back in draft (the owner's PATCH; the page has no button for it), the listing leaves the applicant's
    // applications row: the application stays, its listing withheld.
    await webContext()
      .db.update(jobListings)
      .set({ status: "draft" })
      .where(eq(jobListings.title, "Rust wizard"));
    await other.reload();
    const applied = other.getByTestId("applications");
    await expect
      .poll(() => applied.textContent(), { timeout: 20_000 })
      .toContain("Listing no longer published");
    expect(await applied.textContent()).not.toContain("Rust wizard");
    expect(await applied.textContent()).not.toContain("Acme Robotics");
    await expectAccessible(other);
    await owner.context.close();
    await applicant.context.close();
  }, 120_000);
});
