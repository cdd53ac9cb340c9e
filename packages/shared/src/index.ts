export * from "./actor";
export * from "./basic-auth";
export * from "./bus";
export * from "./config";
export * from "./jetstream";
export * from "./jetstream-consumer";
export * from "./contract";
export * from "./db";
export * from "./deadline";
export * from "./discovery";
export * from "./domain";
export * from "./errors";
export * from "./ids";
export * from "./coalescer";
export * from "./event-cache";
export * from "./realm-settings-cache";
export * from "./semaphore";
export * from "./event-keyed-cache";
export * from "./event-fed-copy";
export * from "./channel-copy";
export * from "./channel-access";
export * from "./events";
export * from "./files";
export * from "./realm-emoji";
export * from "./group-settings";
export * from "./logger";
export * from "./metrics";
export * from "./metrics-listener";
export * from "./outgoing-request";
export * from "./reachable-address";
export * from "./mail";
export * from "./notification-work";
export * from "./realm-mail-contexts";
export * from "./notification-recipients";
export * from "./params";
export * from "./register-state";
export * from "./service";
export * from "./services";
export * as identity from "./contracts/identity";
export * as messaging from "./contracts/messaging";
export * as notifications from "./contracts/notifications";
export * as realmConfig from "./contracts/realm-config";
export * from "./contracts/register";
export * from "./contracts/state-owners";
export { allContracts } from "./contracts";
export {
  groupSettingValueSchema,
  groupSettingValueUpdateSchema,
  type GroupSettingValue,
  type GroupSettingValueUpdate,
  type ExportRow,
} from "./contracts/common";
export * from "./user-groups";
export * from "./markdown";
export * from "./export-format";
