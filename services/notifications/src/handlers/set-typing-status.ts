import {
  badRequest,
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
 * POST /typing (Zulip's send_notification_backend): messaging says who is in
 * the conversation (and refuses what the sender may not see); the event goes
 * to those of them who receive typing notifications, the sender included, as
 * in Zulip. Nothing is stored.
 */
export const setTypingStatusHandler =
  ({
    bus,
    events,
  }: {
    bus: BusClient;
    events: EventPublisher<"notifications">;
  }): Handler<typeof notifications.setTypingStatus> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const sender = { user_id: actor.userId, email: actor.email };
    if (p.type === "stream" || p.type === "channel") {
      if (p.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
      if (p.topic === undefined) throw badRequest("Missing topic");
      const audience = await bus.request(
        messaging.getConversationAudience,
        { stream_id: p.stream_id, topic: p.topic },
        ctx,
      );
      const users = await typingSummaries(bus, ctx, audience.user_ids);
      const event = {
        type: "typing",
        message_type: "stream",
        op: p.op,
        sender,
        stream_id: audience.stream_id ?? p.stream_id,
        topic: audience.topic ?? p.topic,
      } as const;
      events.publish(notificationsEvents.typing, { realmId: realm.id, userIds: notified(users), event }, ctx.requestId);
      return {};
    }
    if (p.to === undefined) throw badRequest("Missing 'to' argument");
    if (p.to.length === 0) throw badRequest("Empty 'to' list");
    const recipientIds = [...new Set([...p.to, actor.userId])];
    // messaging refuses conversations the sender may not have
    await bus.request(messaging.getConversationAudience, { to: p.to }, ctx);
    const users = await typingSummaries(bus, ctx, recipientIds);
    const byId = new Map(users.map((u) => [u.user_id, u]));
    const unknown = recipientIds.find((id) => !byId.has(id));
    if (unknown !== undefined) throw badRequest(`Invalid user ID ${unknown}`);
    const recipients = recipientIds.map((id) => byId.get(id)!);
    const event = {
      type: "typing",
      message_type: "direct",
      op: p.op,
      sender,
      recipients: recipients.map((u) => ({ user_id: u.user_id, email: u.email })),
    } as const;
    events.publish(
      notificationsEvents.typing,
      { realmId: realm.id, userIds: notified(recipients), event },
      ctx.requestId,
    );
    return {};
  };
