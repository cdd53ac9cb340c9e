import {
  identity,
  provideState,
  requireUser,
  userKey,
  type EventKeyedCache,
  type identityEvents,
  type StateProvider,
} from "@teamchat/shared";
import type { PushDeviceRepository } from "./push-device.repository";
import type { PushDeviceDoc } from "./push-device.schema";

/**
 * Each user's registrations as register lists them (push_account_id, status),
 * dropped on push_device events (the bouncer's answers) and on
 * push_devices_changed (a registration stored, or forgotten as the bouncer
 * asked), which no client hears.
 */
export type PushDeviceLists = EventKeyedCache<
  Array<[string, identity.PushDeviceInfo]>,
  typeof identityEvents.pushDevice.payload
>;

/** Zulip's PushDevice.status: active once the bouncer accepted it, failed with its error code, else pending. */
const statusOf = (d: PushDeviceDoc): identity.PushDeviceInfo =>
  d.bouncerDeviceId !== null
    ? { status: "active", error_code: null }
    : d.errorCode !== null
      ? { status: "failed", error_code: d.errorCode }
      : { status: "pending", error_code: null };

/** register's push_devices (Zulip's get_push_devices): every registration of the caller by push_account_id, from memory. */
export const pushDevicesState = ({
  pushDevices,
  pushDeviceLists,
}: {
  pushDevices: PushDeviceRepository;
  pushDeviceLists: PushDeviceLists;
}): StateProvider[] => [
  provideState(identity.pushDevicesState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = async () =>
      (await pushDevices.ofUser(realm.id, actor.userId)).map((d): [string, identity.PushDeviceInfo] => [
        `${d.pushAccountId}`,
        statusOf(d),
      ]);
    return { push_devices: Object.fromEntries(await pushDeviceLists.get(userKey(realm.id, actor.userId), load)) };
  }),
];
