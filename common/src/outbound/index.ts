export * from "./agent";
export * from "./agent-identity";
export * from "./as-fetch";
export * from "./fetch";
export * from "./guard";
