export * from "./fetch";
export * from "./guard";
