export * from "./channels";
export * from "./groups";
export * from "./limits";
export * from "./profile-fields";
export * from "./versions";
export * from "./avatars";
export * from "./emoji";
export * from "./system-bots";
