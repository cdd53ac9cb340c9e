import type { Contract } from "../contract";
import * as identity from "./identity";
import * as messaging from "./messaging";
import * as notifications from "./notifications";
import * as realmConfig from "./realm-config";

const isContract = (v: unknown): v is Contract =>
  typeof v === "object" && v !== null && "subject" in v && "params" in v && "reply" in v;

/** Every contract of every service; the gateway routes those with an `http` binding. */
export const allContracts: Contract[] = [identity, messaging, notifications, realmConfig].flatMap((mod) =>
  Object.values(mod).filter(isContract),
);
