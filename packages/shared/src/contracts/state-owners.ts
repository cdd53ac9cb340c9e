import { registerState as identityState } from "./identity/register";
import { registerState as messagingState } from "./messaging/register";
import { registerState as realmConfigState } from "./realm-config/register";

/** The services whose state parts notifications assembles POST /register from, in reply order. */
export const REGISTER_STATE_CONTRACTS = [identityState, realmConfigState, messagingState] as const;
