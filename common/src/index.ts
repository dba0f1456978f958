export * from "./clock";
export * from "./env";
export * from "./errors";
export * from "./http-log";
export * from "./ids";
export * from "./logger";
export * from "./net";
export * from "./server";
