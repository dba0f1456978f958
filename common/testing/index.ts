export * from "./fake-upstream";
export * from "./fakes/agent-runtime";
export * from "./fakes/ai-provider";
export * from "./fakes/oidc-provider";
export * from "./metrics";
