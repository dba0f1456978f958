export * from "./agent";
export * from "./as-fetch";
export * from "./fetch";
export * from "./guard";
