import {
  badRequest,
  messagingEvents,
  type Actor,
  type HandlerContext,
  type RealmRef,
  type realmConfig,
  type EventPublisher,
} from "@teamchat/shared";
import { checkGroupMentions, renderMessage, type RenderDeps } from "../render/message-rendering";
import { checkMessage, type Addressee, type CheckMessageDeps } from "../messages/check-message";
import { toScheduledMessage, type ScheduledMessageFields } from "./scheduled-message.repository";
import type { ScheduledMessageDoc } from "./scheduled-message.schema";

/** What checking a scheduled message uses: a send's check, then its rendering. */
export interface CheckScheduledDeps extends CheckMessageDeps, RenderDeps {}

/** A scheduled message's addressing as stored: "stream" or "private" (Zulip's API_RECIPIENT_TYPES). */
export type ScheduledAddressing =
  { type: "stream"; to: number; topic: string | undefined } | { type: "private"; to: number[] };

/** Zulip's DeliveryTimeNotInFutureError, for scheduled messages and reminders. */
export const mustBeInFuture = (timestamp: number) => {
  if (timestamp <= Date.now() / 1000) throw badRequest("Scheduled delivery time must be in the future.");
};

/** Zulip's names: "direct" is "private", "channel" is "stream". */
export const storedType = (type: "direct" | "channel" | "stream" | "private"): "stream" | "private" =>
  type === "channel" || type === "stream" ? "stream" : "private";

/**
 * Zulip's extract_stream_id and extract_direct_message_recipient_ids: a
 * channel message goes to one channel id, a direct one to a list of user ids.
 */
export function addressing(
  type: "stream" | "private",
  to: number | unknown[],
  topic: string | undefined,
): ScheduledAddressing {
  if (type === "stream") {
    if (typeof to !== "number") throw badRequest("Invalid data type for stream ID");
    return { type, to, topic };
  }
  if (!Array.isArray(to)) throw badRequest("Invalid data type for recipients");
  if (!to.every((id): id is number => Number.isInteger(id))) {
    throw badRequest("Recipient list may only contain user IDs");
  }
  return { type, to: [...new Set(to)] };
}

/** The addressing a stored scheduled message has (Zulip's get_recipient_ids for the sender). */
export const storedAddressing = (m: ScheduledMessageDoc): ScheduledAddressing =>
  m.type === "stream" ? { type: "stream", to: m.streamId!, topic: m.topic } : { type: "private", to: m.recipientIds };

/** The message as POST /messages would take it. */
export const addresseeOf = (where: ScheduledAddressing, content: string): Addressee => ({
  type: where.type,
  to: where.to,
  topic: where.type === "stream" ? where.topic : undefined,
  content,
});

/**
 * Zulip's check_message for a scheduled message, as POST /messages checks a
 * send: the destination and content as they will be stored, rendered now.
 */
export async function checkScheduledMessage(
  deps: CheckScheduledDeps,
  ctx: HandlerContext,
  realm: RealmRef,
  actor: Actor,
  settings: realmConfig.RealmSettings,
  where: ScheduledAddressing,
  content: string,
): Promise<
  Pick<ScheduledMessageFields, "type" | "streamId" | "recipientIds" | "topic" | "content" | "renderedContent">
> {
  const checked = await checkMessage(deps, ctx, realm, actor, settings, addresseeOf(where, content));
  const { to } = checked;
  const rendered = await renderMessage(deps, ctx, realm, actor.userId, checked.content);
  await checkGroupMentions(deps, ctx, realm, actor.userId, rendered.mentions);
  return {
    type: to.type,
    streamId: to.streamId,
    recipientIds: to.type === "private" ? to.receivers : [],
    topic: to.topic,
    content: checked.content,
    renderedContent: rendered.html,
  };
}

/** Zulip's notify_update_scheduled_message / notify_remove_scheduled_message and the add event, to the sender. */
export function publishScheduledMessages(
  deps: { events: EventPublisher<"messaging"> },
  requestId: string | undefined,
  m: Pick<ScheduledMessageDoc, "realmId" | "senderId">,
  change:
    | { op: "add"; messages: ScheduledMessageDoc[] }
    | { op: "update"; message: ScheduledMessageDoc }
    | { op: "remove"; scheduledMessageId: number },
): void {
  const event =
    change.op === "add"
      ? {
          type: "scheduled_messages" as const,
          op: "add" as const,
          scheduled_messages: change.messages.map(toScheduledMessage),
        }
      : change.op === "update"
        ? {
            type: "scheduled_messages" as const,
            op: "update" as const,
            scheduled_message: toScheduledMessage(change.message),
          }
        : {
            type: "scheduled_messages" as const,
            op: "remove" as const,
            scheduled_message_id: change.scheduledMessageId,
          };
  deps.events.publish(
    messagingEvents.scheduledMessagesChanged,
    { realmId: m.realmId, userIds: [m.senderId], event },
    requestId,
  );
}
