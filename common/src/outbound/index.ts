export * from "./agent";
export * from "./fetch";
export * from "./guard";
