export * from "./auth";
export * from "./settings";
export * from "./users";
export * from "./user-groups";
export * from "./invites";
export * from "./register";
