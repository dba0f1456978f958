export * from "./fake-upstream";
