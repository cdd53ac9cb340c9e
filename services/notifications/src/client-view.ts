import { avatarUrlForClient, type messaging } from "@teamchat/shared";
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
