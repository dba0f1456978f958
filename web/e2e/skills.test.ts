/** The Skills page in real Chromium against the built web app and loopback MCP servers of the built-ins. */
import { startFakeMcpServers } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const servers = await startFakeMcpServers();
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: {
    MCP_WEBSEARCH_URL: servers.websearch.url,
    MCP_CONTEXT7_URL: servers.context7.url,
    MCP_GREP_APP_URL: servers.grep_app.url,
  },
});
afterAll(() => servers.close());

describe("Skills page", () => {
  it("lists the skills, activates one, shows its tools and schemas, calls a tool, shows a tool's error, deactivates", async () => {
    const { page, context } = await stack.signIn();
    try {
      await page.goto("/dashboard/skills");
      await expect
        .poll(() => page.getByRole("link", { name: "Skills" }).getAttribute("aria-current"))
        .toBe("page");
      const web = page.getByTestId("skill-websearch");
      await expect.poll(() => web.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.getByTestId("skill-context7").isVisible()).toBe(true);
      expect(await page.getByTestId("skill-grep_app").isVisible()).toBe(true);
      expect(await web.getByText("inactive").isVisible()).toBe(true);
      await expectAccessible(page);

      await web.getByRole("button", { name: "Activate Web search (Exa)" }).click();
      const search = page.getByTestId("tool-websearch-web_search_exa");
      await expect.poll(() => search.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.getByRole("status").first().textContent()).toContain(
        "exa-search-server 3.1.2, 2 tools",
      );
      await search.getByText("Input schema").click();
      expect(await search.locator("pre").first().textContent()).toContain('"query"');

      const params = search.getByLabel("Parameters of web_search_exa (JSON)");
      await params.fill('{"query": "playwright", "numResults": 1}');
      await search.getByRole("button", { name: "Call web_search_exa" }).click();
      const result = page.getByTestId("result-websearch-web_search_exa");
      await expect.poll(() => result.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await result.textContent()).toContain("playwright — result 1");
      await expectAccessible(page);

      await params.fill("{not json");
      await search.getByRole("button", { name: "Call web_search_exa" }).click();
      expect(await search.getByRole("alert").textContent()).toContain("Parameters must be valid JSON");

      const ctx7 = page.getByTestId("skill-context7");
      await ctx7.getByRole("button", { name: "Activate Library docs (Context7)" }).click();
      const docs = page.getByTestId("tool-context7-query-docs");
      await expect.poll(() => docs.isVisible(), { timeout: 15_000 }).toBe(true);
      await docs
        .getByLabel("Parameters of query-docs (JSON)")
        .fill('{"libraryId": "react", "query": "hooks"}');
      await docs.getByRole("button", { name: "Call query-docs" }).click();
      await expect
        .poll(() => docs.getByRole("alert").textContent(), { timeout: 15_000 })
        .toBe('The call failed: The library "react" does not exist. Use resolve-library-id first.');

      await web.getByRole("button", { name: "Deactivate Web search (Exa)" }).click();
      await expect.poll(() => web.getByText("inactive").isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await search.count()).toBe(0);
      expect(servers.websearch.toolCalls()).toBe(1);
    } finally {
      await context.close();
    }
  }, 120_000);
});
