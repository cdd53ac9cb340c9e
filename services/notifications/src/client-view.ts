import type { EventQueueDoc } from "./event-queues/event-queue.schema";
import type { ZulipEvent } from "./event-store";

type ClientTraits = Pick<EventQueueDoc, "clientCapabilities" | "emptyTopicName" | "clientGravatar" | "applyMarkdown">;

interface MessageFields {
  type?: string;
  subject?: string;
  avatar_url?: string | null;
  content?: string;
  content_type?: string;
}

const GRAVATAR = "https://secure.gravatar.com/";

/**
 * A message event as this client asked for it at register, as GET /messages
 * would answer it: messaging publishes one rendering (HTML, full avatar URL,
 * empty topic as "").
 * - Requirements, convention 9: without the `empty_topic_name` capability, a
 *   channel message's empty topic is the organization's display name.
 * - client_gravatar: the client computes gravatar URLs itself (null here).
 * - apply_markdown=false: the Markdown source instead of HTML.
 */
export function forClient(q: ClientTraits, event: ZulipEvent, markdown?: string): ZulipEvent {
  if (event.type !== "message") return event;
  const message = { ...(event.message as MessageFields) };
  if (q.clientCapabilities.empty_topic_name !== true && message.type === "stream" && message.subject === "") {
    message.subject = q.emptyTopicName;
  }
  if (q.clientGravatar && message.avatar_url?.startsWith(GRAVATAR)) message.avatar_url = null;
  if (!q.applyMarkdown && markdown !== undefined) {
    message.content = markdown;
    message.content_type = "text/x-markdown";
  }
  return { ...event, message };
}
