import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { PushDeviceRepository } from "./push-device.repository";
import type { PushDeviceDoc } from "./push-device.schema";

/** Zulip's PushDevice.status: active once the bouncer accepted it, failed with its error code, else pending. */
const statusOf = (d: PushDeviceDoc): identity.PushDeviceInfo =>
  d.bouncerDeviceId !== null
    ? { status: "active", error_code: null }
    : d.errorCode !== null
      ? { status: "failed", error_code: d.errorCode }
      : { status: "pending", error_code: null };

/** register's push_devices (Zulip's get_push_devices): every registration of the caller by push_account_id. */
export const pushDevicesState = ({ pushDevices }: { pushDevices: PushDeviceRepository }): StateProvider[] => [
  provideState(identity.pushDevicesState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const devices = await pushDevices.ofUser(realm.id, actor.userId);
    return { push_devices: Object.fromEntries(devices.map((d) => [`${d.pushAccountId}`, statusOf(d)])) };
  }),
];
