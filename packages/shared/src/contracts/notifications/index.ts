export * from "./queues";
export * from "./typing";
