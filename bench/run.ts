/** `npm run bench -- <name>`: runs bench/<name>.ts. */
const benches: Record<string, () => Promise<unknown>> = {
  summarizer: () => import("./summarizer"),
  queue: () => import("./queue"),
  "wrapper-proxy": () => import("./wrapper-proxy"),
  mcp: () => import("./mcp"),
  classify: () => import("./classify"),
  gateway: () => import("./gateway"),
  scheduler: () => import("./scheduler"),
  "agent-identity": () => import("./agent-identity"),
  files: () => import("./files"),
  board: () => import("./board"),
  chain: () => import("./chain"),
  "jobs-list": () => import("./jobs-list"),
  runtime: () => import("./runtime"),
};
const chosen = process.argv[2];
const run = chosen ? benches[chosen] : undefined;
if (!run) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join("|")}>`);
  process.exit(2);
}
await run();

export {};
