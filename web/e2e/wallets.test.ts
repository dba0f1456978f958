/**
 * The Wallets page in real headless Chromium against the built web app, a loopback EVM RPC and a loopback
 * x402 v2 seller with its facilitator: create a wallet for an agent, read its balance, pay a 402 and see the
 * payment in the ledger (a double click on "Call and pay" pays once); accessible at desktop and 360 px.
 */
import { startFakeEvmRpc } from "@svc/common/testing/fakes/evm-rpc";
import { startFakeX402Facilitator, startFakeX402Seller } from "@svc/common/testing/fakes/x402";
import { afterAll, describe, expect, it } from "vitest";
import { deployTestAgent } from "../lib/health/testing/agents";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const TOKEN = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const evm = await startFakeEvmRpc();
const facilitator = await startFakeX402Facilitator();
const seller = await startFakeX402Seller({ version: 2, facilitatorUrl: facilitator.url });
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: {
    WALLET_ENCRYPTION_KEY: "5f".repeat(32),
    EVM_RPC_URL: evm.url,
    AGENT_PAYMENT_TOKEN_ADDRESS: TOKEN,
    OUTBOUND_ALLOW_HOSTS: "localhost",
  },
});
afterAll(async () => {
  await Promise.all([evm.close(), seller.close(), facilitator.close()]);
});

describe("the Wallets page", () => {
  it("creates a wallet, reads its balance, pays a 402 and lists the payment", async () => {
    const { page, context, user } = await stack.signIn();
    const agent = await deployTestAgent(user.id, { url: null, name: "Scout" });
    try {
      await page.goto("/dashboard/wallets");
      await expect.poll(() => page.getByTestId("agent-wallets").textContent()).toContain("No wallets yet");
      await page.getByRole("textbox", { name: "Label (company)" }).fill("acme");
      await page.getByRole("button", { name: "Create wallet" }).click();
      const row = page.getByTestId("wallets-table").getByRole("row").nth(1);
      await expect.poll(() => row.textContent()).toContain("Scout");
      const address = (await row.locator("code").textContent()) ?? "";
      expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);

      evm.balances.set(`${TOKEN}:${address.toLowerCase()}`, 2_000_000n);
      await page.getByRole("button", { name: "Read the balance of Scout's wallet" }).click();
      await expect.poll(() => page.getByTestId(`balance-${agent.id}`).textContent()).toBe("2");

      await page
        .getByRole("textbox", { name: "URL", exact: true })
        .fill(`${seller.url.replace("127.0.0.1", "localhost")}/report`);
      // A double click pays once: the button is disabled while the payment runs.
      let payRequests = 0;
      page.on("request", (request) => {
        if (request.method() === "POST" && request.postData()?.includes('"make-payment"')) payRequests++;
      });
      await page.getByRole("button", { name: "Call and pay" }).dblclick();
      await expect
        .poll(() => page.getByTestId("payment-result").textContent(), { timeout: 15_000 })
        .toContain("paid 0.01 USD (x402-v2)");
      expect(payRequests).toBe(1);
      expect(facilitator.settlements).toHaveLength(1);
      await expect
        .poll(() => page.getByTestId("payments-table").getByRole("row").nth(1).textContent())
        .toContain("paid");
      // The balance read before the payment is stale: it is gone, and reading it again shows the new one.
      await expect.poll(() => page.getByTestId(`balance-${agent.id}`).count()).toBe(0);
      evm.balances.set(`${TOKEN}:${address.toLowerCase()}`, 1_990_000n);
      await page.getByRole("button", { name: "Read the balance of Scout's wallet", exact: true }).click();
      await expect.poll(() => page.getByTestId(`balance-${agent.id}`).textContent()).toBe("1.99");
      // Next to the value, a control reads it again.
      evm.balances.set(`${TOKEN}:${address.toLowerCase()}`, 1_500_000n);
      await page.getByRole("button", { name: "Read the balance of Scout's wallet again" }).click();
      await expect.poll(() => page.getByTestId(`balance-${agent.id}`).textContent()).toBe("1.5");

      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);
});
