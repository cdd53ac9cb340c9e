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
 * Any other event as this client asked for it, as one or more events:
 * - topics name Zulip's empty topic as messageForClient does (update_message_flags'
 *   details of messages marked unread, update_message's, delete_message's and
 *   user_topic's topics);
 * - delete_message lists its messages only for clients with the
 *   bulk_message_deletion capability, others get one event per message;
 * - a channel archived or unarchived (stream update of is_archived) is told as
 *   such only to clients with the archived_channels capability (FL 315, 378);
 *   to others an archived channel is gone (Zulip's stream op:delete) and an
 *   unarchived one new (the stream op:create published for_unarchiving);
 * - user_group events as userGroupEventForClient shapes them.
 */
export function eventForClient(q: ClientTraits, event: notifications.ClientEvent): notifications.ClientEvent[] {
  if (event.type === "user_group") return userGroupEventForClient(q, event);
  const archivedChannels = q.clientCapabilities.archived_channels === true;
  if (event.type === "stream" && event.op === "update" && event.property === "is_archived") {
    if (archivedChannels) return [event];
    if (event.value !== true) return [];
    return [{ type: "stream", op: "delete", streams: [{ stream_id: event.stream_id }], stream_ids: [event.stream_id] }];
  }
  if (event.type === "stream" && event.op === "create" && event.for_unarchiving) {
    if (archivedChannels) return [];
    const { for_unarchiving: _internal, ...created } = event;
    return [created];
  }
  const shown = q.clientCapabilities.empty_topic_name === true ? event : withTopicNames(event, q.emptyTopicName);
  if (shown.type !== "delete_message" || q.clientCapabilities.bulk_message_deletion === true) return [shown];
  const { message_ids = [], ...rest } = shown;
  return message_ids.map((message_id) => ({ ...rest, message_id }));
}

/** The event with Zulip's empty topic shown by the organization's display name. */
function withTopicNames(event: notifications.ClientEvent, emptyTopicName: string): notifications.ClientEvent {
  const name = (topic: string | undefined) => (topic === "" ? emptyTopicName : topic);
  switch (event.type) {
    case "update_message_flags":
      if (!event.message_details) return event;
      return {
        ...event,
        message_details: Object.fromEntries(
          Object.entries(event.message_details).map(([id, d]) => [
            id,
            d.topic === "" ? { ...d, topic: emptyTopicName } : d,
          ]),
        ),
      };
    case "update_message":
      return { ...event, orig_subject: name(event.orig_subject), subject: name(event.subject) };
    case "delete_message":
      return event.topic === undefined ? event : { ...event, topic: name(event.topic) };
    case "user_topic":
      return { ...event, topic_name: name(event.topic_name)! };
    default:
      return event;
  }
}

type UserGroupEvent = Extract<notifications.ClientEvent, { type: "user_group" }>;

/**
 * Zulip's include_deactivated_groups client capability: clients with it hear
 * a deactivation or reactivation as an update of `deactivated` and keep
 * hearing of deactivated groups; the others hear a deactivation as `remove`,
 * a reactivation as `add`, and nothing more of deactivated groups.
 */
function userGroupEventForClient(q: ClientTraits, event: UserGroupEvent): notifications.ClientEvent[] {
  const knowsDeactivated = q.clientCapabilities.include_deactivated_groups === true;
  switch (event.op) {
    case "add": {
      const { for_reactivation, ...add } = event;
      return for_reactivation && knowsDeactivated ? [] : [add];
    }
    case "update": {
      const { deactivated, ...update } = event;
      if (knowsDeactivated) return [update];
      return "deactivated" in update.data || deactivated ? [] : [update];
    }
    case "remove":
      return knowsDeactivated ? [] : [event];
    default:
      return [event];
  }
}
