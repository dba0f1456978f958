/**
 * The dashboard's navigation: one entry per area that has a page. An area adds its entry here (ONE entry,
 * appended) when its page exists; nothing that is not built is listed.
 */
export interface DashboardArea {
  /** The page's path under /dashboard. */
  href: `/dashboard${string}`;
  /** The link text in the navigation. */
  label: string;
  /** One line about the area (the link's title, the overview's hints). */
  description: string;
  /** Only administrators see it. */
  adminOnly?: boolean;
  /** Listed apart, at the foot of the navigation (account matters rather than the product's areas). */
  footer?: boolean;
}

export const dashboardAreas: readonly DashboardArea[] = [
  { href: "/dashboard", label: "Overview", description: "Your agent, trial and recent activity at a glance" },
  {
    href: "/dashboard/agent",
    label: "Agent",
    description: "Deploy your agent, control it, read its logs and heartbeat",
  },
  {
    href: "/dashboard/chain",
    label: "Chain",
    description: "SOL price, wallet lookup, token tiers, your RPC endpoint and radio identity",
  },
  {
    href: "/dashboard/wallets",
    label: "Wallets",
    description: "Agent wallets, machine payments (x402, MPP) and the payments ledger",
  },
  {
    href: "/dashboard/settings",
    label: "Settings",
    description: "Account, referral, passkeys and API keys",
    footer: true,
  },
];
