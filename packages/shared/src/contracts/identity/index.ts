export * from "./auth";
export * from "./settings";
export * from "./users";
export * from "./register";
export * from "./presence";
