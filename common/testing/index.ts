export * from "./fake-upstream";
export * from "./fakes/oidc-provider";
