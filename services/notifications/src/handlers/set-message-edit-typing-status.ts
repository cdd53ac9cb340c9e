import { messaging, notifications, publishEvent, requireUser, type BusClient, type Handler } from "@teamchat/shared";
import type { NatsConnection } from "@nats-io/transport-node";
import { notified, typingSummaries } from "./typing-audience";

/**
 * POST /messages/{message_id}/typing (E17): messaging checks the message and
 * names its audience; Zulip's typing_edit_message event goes to those who
 * receive typing notifications.
 */
export const setMessageEditTypingStatusHandler =
  (bus: BusClient, nc: NatsConnection): Handler<typeof notifications.setMessageEditTypingStatus> =>
  async ({ message_id, op }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const audience = await bus.request(messaging.getConversationAudience, { message_id }, ctx);
    const userIds = notified(await typingSummaries(bus, ctx, audience.user_ids));
    const recipient =
      audience.stream_id !== undefined
        ? { type: "channel", channel_id: audience.stream_id, topic: audience.topic ?? "" }
        : { type: "direct", user_ids: userIds };
    const event = { type: "typing_edit_message", op, sender_id: actor.userId, message_id, recipient };
    publishEvent(nc, "notifications", { realmId: realm.id, userIds, event }, ctx.requestId);
    return {};
  };
