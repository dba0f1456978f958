// Every table of every service, one module per area.
export * from "./accounts";
export * from "./agents";
export * from "./ai";
export * from "./board";
export * from "./buddies";
export * from "./chain";
export * from "./files";
export * from "./gateway";
export * from "./jobs";
export * from "./partners";
export * from "./permissions";
export * from "./ratelimits";
export * from "./skills";
export * from "./tasks";
