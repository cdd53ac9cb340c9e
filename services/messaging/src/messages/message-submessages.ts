import {
  messagingEvents,
  type EventPublisher,
  type HandlerContext,
  type messaging,
  type PayloadOf,
} from "@teamchat/shared";
import type { MessageDoc, StoredSubmessage } from "./message.schema";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** Zulip's submessage object, as messages carry it. */
export const submessageView = (messageId: number, s: StoredSubmessage): messaging.Submessage => ({
  id: s.id,
  message_id: messageId,
  sender_id: s.senderId,
  msg_type: s.msgType,
  content: s.content,
});

/** A message event's submessages as stored (the caches' copies built from the event). */
export const storedSubmessages = (message: messaging.Message): Pick<MessageDoc, "submessages"> =>
  message.submessages.length
    ? {
        submessages: message.submessages.map((s) => ({
          id: s.id,
          senderId: s.sender_id,
          msgType: s.msg_type,
          content: s.content,
        })),
      }
    : {};

type SubmessageAdded = PayloadOf<typeof messagingEvents.submessageAdded>;

/** A submessage event applied to a copy of its message (the caches'): idempotent, as EventCache requires. */
export function applySubmessage(message: MessageDoc, { event }: SubmessageAdded): void {
  const submessages = message.submessages ?? [];
  if (submessages.some((s) => s.id === event.submessage_id)) return;
  message.submessages = [
    ...submessages,
    { id: event.submessage_id, senderId: event.sender_id, msgType: event.msg_type, content: event.content },
  ];
}

/**
 * Zulip's submessage event, to the users who received the message (its
 * UserMessage rows), published before the reply (see EventCache).
 */
export async function publishSubmessage(
  deps: { events: EventPublisher<"messaging">; receivers: ReceiverCache },
  ctx: HandlerContext,
  realmId: number,
  message: MessageDoc,
  submessage: StoredSubmessage,
): Promise<void> {
  deps.events.publish(
    messagingEvents.submessageAdded,
    {
      realmId,
      userIds: await deps.receivers.receiversOf(realmId, message),
      streamId: message.streamId,
      event: {
        type: "submessage",
        msg_type: submessage.msgType,
        message_id: message.messageId,
        submessage_id: submessage.id,
        sender_id: submessage.senderId,
        content: submessage.content,
      },
    },
    ctx.requestId,
  );
}
