import type { EventQueueDoc } from "./event-queues/event-queue.schema";
import type { ZulipEvent } from "./event-store";

type ClientTraits = Pick<EventQueueDoc, "clientCapabilities" | "emptyTopicName">;

/**
 * An event as this client should see it. Requirements, convention 9: a client
 * that did not declare the `empty_topic_name` capability gets a channel
 * message's empty topic as the organization's realm_empty_topic_display_name.
 */
export function forClient(q: ClientTraits, event: ZulipEvent): ZulipEvent {
  if (event.type !== "message" || q.clientCapabilities.empty_topic_name === true) return event;
  const message = event.message as { type?: string; subject?: string } | undefined;
  if (message?.type !== "stream" || message.subject !== "") return event;
  return { ...event, message: { ...message, subject: q.emptyTopicName } };
}
