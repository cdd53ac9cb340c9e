import { requireUser, type Handler, type identity } from "@teamchat/shared";
import { deviceNotRecognized } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";
import type { PushNotifier } from "../push-notifications/push-notifier";

/**
 * POST /mobile_push/test_notification (Zulip's send_test_push_notification_api):
 * to the caller's named token, or to all of theirs, through the push
 * notification service (one POST remotes/push/test_notification per token;
 * its failures answer as Zulip's: 502 when it cannot be reached, its own
 * message when it refuses). Without a push service Zulip has nowhere to send
 * and answers success (it logs and drops the notification), as here.
 */
export const sendTestPushNotificationHandler =
  ({
    pushTokens,
    notifier,
  }: {
    pushTokens: PushDeviceTokenRepository;
    /** undefined: push is not configured */
    notifier: PushNotifier | undefined;
  }): Handler<typeof identity.sendTestPushNotification> =>
  async ({ token }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    let devices = await pushTokens.ofUser(realm.id, actor.userId);
    if (token !== undefined) {
      devices = devices.filter((d) => d.token === token);
      if (devices.length === 0) throw deviceNotRecognized();
    }
    if (notifier) {
      await notifier.testLegacy(realm, actor.userId, devices);
      return {};
    }
    ctx.log.info(
      { userId: actor.userId, devices: devices.length },
      "test push notification dropped: no push notification service is configured",
    );
    return {};
  };
