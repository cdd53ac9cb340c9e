import { ZulipError, requireUser, type Handler, type identity } from "@teamchat/shared";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";
import { BouncerConfigurationError, BouncerRetryLaterError } from "../push-notifications/bouncer";
import type { PushNotifier } from "../push-notifications/push-notifier";
import { requireHuman } from "../users/access";

/** Zulip's NoActivePushDeviceError. */
const noActivePushDevice = () => new ZulipError("NO_ACTIVE_PUSH_DEVICE", "No active registered push device");

/**
 * POST /mobile_push/e2ee/test_notification (Zulip's
 * send_e2ee_test_push_notification_api, FL 420): a "test" notification sealed
 * for the caller's device of this push_account_id, or each of their devices the
 * bouncer knows; none (or the bouncer has none of them any more) answers
 * NO_ACTIVE_PUSH_DEVICE. Bouncer failures answer as Zulip's: 502
 * FAILED_TO_CONNECT_BOUNCER or INTERNAL_SERVER_ERROR_ON_BOUNCER, and 403
 * ADMIN_ACTION_REQUIRED when it refuses this server.
 */
export const sendE2eeTestPushNotificationHandler =
  ({
    pushDevices,
    notifier,
  }: {
    pushDevices: PushDeviceRepository;
    notifier: PushNotifier | undefined;
  }): Handler<typeof identity.sendE2eeTestPushNotification> =>
  async ({ push_account_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    const devices = await pushDevices.active(realm.id, actor.userId, push_account_id);
    if (devices.length === 0 || !notifier) throw noActivePushDevice();
    let delivered: boolean;
    try {
      delivered = await notifier.testE2ee(realm, actor.userId, devices);
    } catch (err) {
      if (err instanceof BouncerRetryLaterError) {
        throw err.serverError
          ? new ZulipError(
              "INTERNAL_SERVER_ERROR_ON_BOUNCER",
              "Internal server error on Zulip push notification service, retry later.",
              502,
            )
          : new ZulipError(
              "FAILED_TO_CONNECT_BOUNCER",
              "Network error while connecting to Zulip push notification service.",
              502,
            );
      }
      if (!(err instanceof BouncerConfigurationError)) throw err;
      ctx.log.error({ err, userId: actor.userId }, "Sending E2EE test push notification failed.");
      throw new ZulipError(
        "ADMIN_ACTION_REQUIRED",
        "Push notification configuration issue on server, contact the server administrator or retry later.",
        403,
      );
    }
    if (!delivered) throw noActivePushDevice();
    return {};
  };
