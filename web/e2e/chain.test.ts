/**
 * The Chain page in real headless Chromium against the built web app, with loopback Solana RPC, market data
 * and radio services: the price, a wallet lookup, a holder's tier, saving an RPC URL (refused, then saved),
 * linking a radio wallet and its DJ stats; accessible at desktop and 360 px.
 */
import { startFakeMarketData, startFakeRadioApi, startFakeSolanaRpc } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const rpc = await startFakeSolanaRpc();
const market = await startFakeMarketData();
const radio = await startFakeRadioApi();
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: {
    L1_RPC_URL: rpc.url,
    MARKET_DATA_URL: market.url,
    RADIO_API_URL: radio.url,
    OUTBOUND_ALLOW_HOSTS: "localhost",
  },
});
afterAll(async () => {
  await Promise.all([rpc.close(), market.close(), radio.close()]);
});

const ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const HOLDER = "HoLdBuiLder22222222222222222222222222222222";
const MINT = "9V4m199eohMgy7bB7MbXhDacUur6NzpgZVrhfux5pump";
const DJ_WALLET = "0xabcdef0123456789abcdef0123456789abcdef01";

describe("the Chain page", () => {
  it("shows the price, looks up a wallet, checks a tier, saves an RPC URL, links a radio wallet", async () => {
    rpc.accounts.set(ADDRESS, {
      lamports: 2_500_000_000,
      owner: "11111111111111111111111111111111",
      rentEpoch: 361,
      tokens: [{ mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", amount: "12500000", decimals: 6 }],
    });
    rpc.accounts.set(HOLDER, { lamports: 0, tokens: [{ mint: MINT, amount: "10000000000", decimals: 6 }] });
    radio.djs.set(DJ_WALLET, {
      name: "DJ Nova",
      slug: "dj-nova",
      avatar: null,
      followers: 77,
      genres: ["house"],
      stats: { totalShows: 3, totalListeners: 120, totalTipsEth: 0.01 },
    });
    const { page, context } = await stack.signIn();
    try {
      await page.goto("/dashboard/chain");
      await expect.poll(() => page.getByTestId("l1-price-value").textContent()).toBe("$142.37");
      await expect
        .poll(() => page.getByRole("link", { name: "Chain" }).getAttribute("aria-current"))
        .toBe("page");

      await page.getByRole("textbox", { name: "Address", exact: true }).fill(ADDRESS);
      await page.getByRole("button", { name: "Look up" }).click();
      await expect.poll(() => page.getByTestId("sol-balance").textContent()).toBe("2.5 SOL");
      expect(await page.getByTestId("wallet-tokens").getByRole("row").nth(1).textContent()).toContain("USDC");

      await page.getByRole("textbox", { name: "Holder address" }).fill(HOLDER);
      await page.getByRole("button", { name: "Check tier" }).click();
      await expect.poll(() => page.getByTestId("token-tier").textContent()).toContain("Builder");

      // Saving: refused (a placeholder host), then saved (an allowed host).
      const rpcField = page.getByRole("textbox", { name: "Your RPC URL" });
      await rpcField.fill("https://rpc.example.com/");
      await page.getByRole("button", { name: "Save RPC URL" }).click();
      await expect
        .poll(() => page.getByTestId("rpc-config").getByRole("alert").textContent())
        .toContain("RPC URL is a placeholder");
      await rpcField.fill("https://localhost:8899/?api-key=abc");
      await page.getByRole("button", { name: "Save RPC URL" }).click();
      await expect
        .poll(() => page.getByTestId("rpc-url").textContent())
        .toBe("https://localhost:8899/?api-key=abc");

      await page.getByRole("textbox", { name: "Radio wallet (0x…)" }).fill(DJ_WALLET);
      await page.getByRole("button", { name: "Link wallet" }).click();
      await expect.poll(() => page.getByTestId("radio-wallet").textContent()).toBe(DJ_WALLET);
      // 0.01 ETH at 3000 USD.
      await expect.poll(() => page.getByTestId("dj-tips").textContent()).toBe("30.00 USDC");

      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);
});
