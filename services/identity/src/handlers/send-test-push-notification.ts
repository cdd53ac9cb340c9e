import { ZulipError, requireUser, type Handler, type identity } from "@teamchat/shared";
import { deviceNotRecognized } from "../push-devices/push-rules";
import { requireHuman } from "../users/access";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";

/**
 * POST /mobile_push/test_notification (Zulip's send_test_push_notification_api):
 * to the caller's named token, or to all of theirs. Without a push service
 * Zulip has nowhere to send and answers success (it logs and drops the
 * notification), as here; with a bouncer configured the notification would go
 * through it, which this server does not reach (it has no bouncer credentials):
 * 502 as Zulip's PushNotificationBouncerRetryLaterError, nothing sent.
 */
export const sendTestPushNotificationHandler =
  ({
    pushTokens,
    pushBouncerUrl,
  }: {
    pushTokens: PushDeviceTokenRepository;
    /** the push notification service's URL (PUSH_NOTIFICATION_BOUNCER_URL); undefined: push is not configured */
    pushBouncerUrl: string | undefined;
  }): Handler<typeof identity.sendTestPushNotification> =>
  async ({ token }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    let devices = await pushTokens.ofUser(realm.id, actor.userId);
    if (token !== undefined) {
      devices = devices.filter((d) => d.token === token);
      if (devices.length === 0) throw deviceNotRecognized();
    }
    if (pushBouncerUrl !== undefined) {
      throw new ZulipError("BAD_REQUEST", "This server cannot reach the push notification bouncer", 502);
    }
    ctx.log.info(
      { userId: actor.userId, devices: devices.length },
      "test push notification dropped: no push notification service is configured",
    );
    return {};
  };
