export * from "./auth";
export * from "./settings";
export * from "./users";
