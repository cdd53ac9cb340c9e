import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { DeviceRepository } from "./device.repository";

/** A device no push registration has touched: every field of Zulip's DeviceInfoDict null. */
const unregistered: identity.DeviceInfo = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
};

/** register's devices: the caller's, keyed by id as Zulip's get_devices keys them. */
export const devicesState = ({ devices }: { devices: DeviceRepository }): StateProvider[] => [
  provideState(identity.devicesState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const mine = await devices.ofUser(realm.id, actor.userId);
    return { devices: Object.fromEntries(mine.map((d) => [String(d.deviceId), unregistered])) };
  }),
];
