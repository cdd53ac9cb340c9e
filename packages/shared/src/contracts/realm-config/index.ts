export * from "./channel-folders";
export * from "./linkifiers";
export * from "./profile-fields";
export * from "./realms";
export * from "./server-settings";
export * from "./register";
export * from "./emoji";
export * from "./realm-export";
