export * from "./endpoint";
export * from "./http";
export * from "./registry";
