import { identity, type BusServer, type EventPublisher } from "@teamchat/shared";
import {
  addAndroidRegIdHandler,
  addApnsDeviceTokenHandler,
  removeAndroidRegIdHandler,
  removeApnsDeviceTokenHandler,
} from "../handlers/push-device-tokens";
import { registerPushDeviceHandler } from "../handlers/register-push-device";
import { sendE2eeTestPushNotificationHandler } from "../handlers/send-e2ee-test-push-notification";
import { sendTestPushNotificationHandler } from "../handlers/send-test-push-notification";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";
import type { PushNotifications } from "../push-notifications/push-notifications";
import type { PushNotifier } from "../push-notifications/push-notifier";

/**
 * Push devices: end-to-end encrypted registrations, the legacy APNs and FCM tokens, and test
 * notifications.
 */
export function registerPushDeviceOperations(
  server: BusServer,
  {
    pushDevices,
    pushTokens,
    notifier,
    queueRegistration,
    events,
  }: {
    pushDevices: PushDeviceRepository;
    pushTokens: PushDeviceTokenRepository;
    /** the push notification service, when configured */
    notifier: PushNotifier | undefined;
    /** the push notification service's registration queue, when configured */
    queueRegistration: PushNotifications["queueRegistration"] | undefined;
    events: EventPublisher<"identity">;
  },
): void {
  server
    .handle(identity.registerPushDevice, registerPushDeviceHandler({ pushDevices, events, queueRegistration }))
    .handle(identity.addApnsDeviceToken, addApnsDeviceTokenHandler({ pushTokens, notifier }))
    .handle(identity.removeApnsDeviceToken, removeApnsDeviceTokenHandler({ pushTokens, notifier }))
    .handle(identity.addAndroidRegId, addAndroidRegIdHandler({ pushTokens, notifier }))
    .handle(identity.removeAndroidRegId, removeAndroidRegIdHandler({ pushTokens, notifier }))
    .handle(identity.sendTestPushNotification, sendTestPushNotificationHandler({ pushTokens, notifier }))
    .handle(identity.sendE2eeTestPushNotification, sendE2eeTestPushNotificationHandler({ pushDevices, notifier }));
}
