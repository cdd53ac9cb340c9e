import {
  messaging,
  notifications,
  notificationsEvents,
  requireUser,
  type BusClient,
  type EventPublisher,
  type Handler,
} from "@teamchat/shared";
import { notified, typingSummaries } from "./typing-audience";

/**
 * POST /messages/{message_id}/typing (Zulip's send_message_edit_notification_backend): messaging checks the message and
 * names its audience; Zulip's typing_edit_message event goes to those who
 * receive typing notifications.
 */
export const setMessageEditTypingStatusHandler =
  ({
    bus,
    events,
  }: {
    bus: BusClient;
    events: EventPublisher<"notifications">;
  }): Handler<typeof notifications.setMessageEditTypingStatus> =>
  async ({ message_id, op }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const audience = await bus.request(messaging.getConversationAudience, { message_id }, ctx);
    const userIds = notified(await typingSummaries(bus, ctx, audience.user_ids));
    const recipient =
      audience.stream_id !== undefined
        ? ({ type: "channel", channel_id: audience.stream_id, topic: audience.topic ?? "" } as const)
        : ({ type: "direct", user_ids: userIds } as const);
    events.publish(
      notificationsEvents.typingEditMessage,
      {
        realmId: realm.id,
        userIds,
        event: { type: "typing_edit_message", op, sender_id: actor.userId, message_id, recipient },
      },
      ctx.requestId,
    );
    return {};
  };
