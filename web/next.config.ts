import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source.
  transpilePackages: ["@svc/common", "@svc/db"],
  // Native-ish server packages stay outside the bundle.
  // swagger-ui-dist finds its static files (served at /docs) by its own path: it must stay a package.
  // mppx has optional dynamic imports (MCP) that a bundler cannot resolve: Node loads it at run time.
  serverExternalPackages: ["pg", "pino", "prom-client", "swagger-ui-dist", "mppx", "stripe"],
  poweredByHeader: false,
};

export default config;
