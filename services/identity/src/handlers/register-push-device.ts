import { requireUser, type Handler, type identity } from "@teamchat/shared";
import { checkPushRegistration, pushServiceNotConfigured } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";

/**
 * POST /mobile_push/register (Zulip's register_push_device at FL 406):
 * refused without a push notification service; otherwise the registration is
 * stored, replacing the one of the same push_account_id.
 */
export const registerPushDeviceHandler =
  ({
    pushDevices,
    pushBouncerUrl,
  }: {
    pushDevices: PushDeviceRepository;
    pushBouncerUrl: string | undefined;
  }): Handler<typeof identity.registerPushDevice> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    if (pushBouncerUrl === undefined) throw pushServiceNotConfigured();
    checkPushRegistration(p);
    await pushDevices.register(realm.id, actor.userId, p.push_account_id, {
      tokenKind: p.token_kind,
      pushPublicKey: p.push_public_key,
      bouncerPublicKey: p.bouncer_public_key,
      encryptedPushRegistration: p.encrypted_push_registration,
    });
    return {};
  };
