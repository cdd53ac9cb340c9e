import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { PushDeviceRepository } from "./push-device.repository";

/**
 * register's push_devices (Zulip's get_push_devices): every registration of the
 * caller by push_account_id. This server keeps registrations and does not
 * forward them to the bouncer (it has no bouncer credentials), so each stays
 * pending: no push_device event ever changes one.
 */
export const pushDevicesState = ({ pushDevices }: { pushDevices: PushDeviceRepository }): StateProvider[] => [
  provideState(identity.pushDevicesState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const devices = await pushDevices.ofUser(realm.id, actor.userId);
    return {
      push_devices: Object.fromEntries(
        devices.map((d) => [`${d.pushAccountId}`, { status: "pending" as const, error_code: null }]),
      ),
    };
  }),
];
