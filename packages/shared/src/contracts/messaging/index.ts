export * from "./channels";
export * from "./conversations";
export * from "./flags";
export * from "./messages";
export * from "./reactions";
export * from "./subscriptions";
export * from "./topics";
export * from "./register";
