export * from "./queues";
export * from "./register";
export * from "./typing";
