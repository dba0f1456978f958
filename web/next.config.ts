import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source.
  transpilePackages: ["@svc/common", "@svc/db"],
  // Native-ish server packages stay outside the bundle.
  serverExternalPackages: ["pg", "pino"],
  poweredByHeader: false,
};

export default config;
