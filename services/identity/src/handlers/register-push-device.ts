import {
  identityEvents,
  requireUser,
  type EventPublisher,
  type Handler,
  type identity,
  type notifications,
} from "@teamchat/shared";
import { checkPushRegistration, pushServiceNotConfigured } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";

/**
 * POST /mobile_push/register (Zulip's register_push_device at FL 406):
 * refused without a push notification service; otherwise the registration is
 * stored, replacing the one of the same push_account_id, pending, and queued
 * for the bouncer (Zulip's register_push_device_to_bouncer queue item), which
 * makes it active or failed. No client event, as in Zulip; push_devices_changed
 * drops every instance's copy for register.
 */
export const registerPushDeviceHandler =
  ({
    pushDevices,
    events,
    queueRegistration,
  }: {
    pushDevices: PushDeviceRepository;
    events: EventPublisher<"identity">;
    /** undefined: push is not configured */
    queueRegistration: ((notice: notifications.PushRegistrationNotice) => Promise<void>) | undefined;
  }): Handler<typeof identity.registerPushDevice> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    if (queueRegistration === undefined) throw pushServiceNotConfigured();
    checkPushRegistration(p);
    await pushDevices.register(realm.id, actor.userId, p.push_account_id, {
      tokenKind: p.token_kind,
      pushPublicKey: p.push_public_key,
      bouncerPublicKey: p.bouncer_public_key,
      encryptedPushRegistration: p.encrypted_push_registration,
    });
    events.publish(identityEvents.pushDevicesChanged, { realmId: realm.id, userIds: [actor.userId] }, ctx.requestId);
    await queueRegistration({
      realmId: realm.id,
      userId: actor.userId,
      pushAccountId: p.push_account_id,
      bouncerPublicKey: p.bouncer_public_key,
      encryptedPushRegistration: p.encrypted_push_registration,
    });
    return {};
  };
