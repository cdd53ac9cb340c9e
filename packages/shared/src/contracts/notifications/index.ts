export * from "./missed-message";
export * from "./queues";
export * from "./register";
export * from "./typing";
export * from "./missed-message";
export * from "./notification-work";
