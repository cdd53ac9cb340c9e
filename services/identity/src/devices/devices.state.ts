import {
  identity,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type identityEvents,
  type StateProvider,
} from "@teamchat/shared";
import type { DeviceRepository } from "./device.repository";

/** Each user's device ids, oldest first, for register (dropped on the device events of every registration and removal). */
export type DeviceLists = EventKeyedCache<number[], typeof identityEvents.device.payload>;

/** A device no push registration has touched: every field of Zulip's DeviceInfoDict null. */
const unregistered: identity.DeviceInfo = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
};

/** register's devices: the caller's, keyed by id as Zulip's get_devices keys them, from memory (every register reads them). */
export const devicesState = ({
  devices,
  deviceLists,
}: {
  devices: DeviceRepository;
  deviceLists: DeviceLists;
}): StateProvider[] => [
  provideState(identity.devicesState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () => (await devices.ofUser(realm.id, actor.userId)).map((d) => d.deviceId);
    const mine = await deviceLists.get(userKey(realm.id, actor.userId), load);
    return { devices: Object.fromEntries(mine.map((id) => [String(id), unregistered])) };
  }),
];
