export * from "./auth";
export * from "./settings";
export * from "./users";
export * from "./accounts";
export * from "./bots";
export * from "./register";
export * from "./navigation-views";
export * from "./presence";
