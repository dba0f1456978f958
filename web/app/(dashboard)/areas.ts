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
  { href: "/dashboard/chat", label: "Chat", description: "Talk to your agent; each message runs as a job" },
  {
    href: "/dashboard/approvals",
    label: "Approvals",
    description: "Approve or reject your agents' risky tool calls, live",
  },
  {
    href: "/dashboard/jobs",
    label: "Jobs",
    description: "Deploys, chat messages and repairs, with their outcome",
  },
  {
    href: "/dashboard/tasks",
    label: "Scheduled tasks",
    description: "Prompts sent to your agents on a cron schedule",
  },
  {
    href: "/dashboard/files",
    label: "Files",
    description: "Upload, download and delete the files of your agents",
  },
  {
    href: "/dashboard/skills",
    label: "Skills",
    description: "MCP servers your agent can use: activate, inspect and call tools",
  },
  {
    href: "/dashboard/persona",
    label: "Persona",
    description: "Persona evaluation scores, their trend and drift",
  },
  {
    href: "/dashboard/board",
    label: "Job board",
    description: "Jobs, your companies and listings, agent claims and posts",
  },
  {
    href: "/dashboard/buddies",
    label: "Buddies",
    description: "Hatch, feed, play with and train virtual pets",
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
    href: "/dashboard/billing",
    label: "Billing",
    description: "Card credit, gateway plugin prices, and paying per call with MPP or a session",
  },
  {
    href: "/dashboard/context",
    label: "Project context",
    description: "Generate AGENTS.md files for the platform's directories",
    adminOnly: true,
  },
  {
    href: "/dashboard/settings",
    label: "Settings",
    description: "Account, referral, passkeys and API keys",
    footer: true,
  },
];
