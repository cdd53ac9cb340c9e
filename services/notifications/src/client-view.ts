import { avatarUrlForClient, type messaging, type notifications } from "@teamchat/shared";
import type { EventQueueDoc } from "./event-queues/event-queue.schema";

type ClientTraits = Pick<EventQueueDoc, "clientCapabilities" | "emptyTopicName" | "clientGravatar" | "applyMarkdown">;

/**
 * A message as this client asked for it at register, as GET /messages would
 * answer it: messaging publishes one rendering (HTML, full avatar URL, empty
 * topic as "") and the Markdown source.
 * - Zulip's empty topic (FL 334): without the `empty_topic_name` capability, a
 *   channel message's empty topic is the organization's display name.
 * - client_gravatar: the client computes Gravatar URLs itself (null here).
 * - apply_markdown=false: the Markdown source instead of HTML.
 */
export function messageForClient(q: ClientTraits, message: messaging.Message, markdown: string): messaging.Message {
  const shown = { ...message, avatar_url: avatarUrlForClient(message.avatar_url, q.clientGravatar) };
  if (shown.type === "stream" && shown.subject === "" && q.clientCapabilities.empty_topic_name !== true) {
    shown.subject = q.emptyTopicName;
  }
  if (!q.applyMarkdown) {
    shown.content = markdown;
    shown.content_type = "text/x-markdown";
  }
  return shown;
}

/**
 * Any other event as this client asked for it: update_message_flags' details
 * of messages marked unread name the empty topic as messageForClient does.
 */
export function eventForClient(q: ClientTraits, event: notifications.ClientEvent): notifications.ClientEvent {
  if (event.type !== "update_message_flags" || !event.message_details) return event;
  if (q.clientCapabilities.empty_topic_name === true) return event;
  const shown = Object.fromEntries(
    Object.entries(event.message_details).map(([id, d]) => [
      id,
      d.topic === "" ? { ...d, topic: q.emptyTopicName } : d,
    ]),
  );
  return { ...event, message_details: shown };
}
