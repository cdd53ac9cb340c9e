import {
  badRequest,
  requireUser,
  type Handler,
  type ReplyOf,
  type messaging,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { accessMessage } from "../messages/message-access";
import { topicForClient } from "../messages/message-view";
import type { ReceiverCache } from "../user-messages/receiver-cache";

type Version = ReplyOf<typeof messaging.getMessageHistory>["message_history"][number];

/**
 * GET /messages/{message_id}/history (Zulip's get_message_edit_history and
 * fill_edit_history_entries): every version of the message, oldest first —
 * the message as sent, then one per edit with the content and topic after it
 * and what it changed — refused when the organization hides edit history.
 */
export const getMessageHistoryHandler =
  (deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    settings: RealmSettingsSource;
  }): Handler<typeof messaging.getMessageHistory> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const settings = await deps.settings.get(ctx);
    if (settings.message_edit_history_visibility_policy === "none") {
      throw badRequest("Message edit history is disabled in this organization");
    }
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    const shown = (topic: string) =>
      message.type === "stream" ? topicForClient(topic, p.allow_empty_topic_name, settings) : topic;
    // from the current version back to the first: each edit's "prev_" fields are the version before it
    let { content, renderedContent, topic } = message;
    const newestFirst: Version[] = [];
    for (const edit of [...(message.editHistory ?? [])].reverse()) {
      const version: Version = {
        content,
        rendered_content: renderedContent,
        timestamp: edit.timestamp,
        topic: shown(topic),
        user_id: edit.user_id,
      };
      if (edit.prev_topic !== undefined) {
        topic = edit.prev_topic;
        version.prev_topic = shown(topic);
      }
      if (edit.prev_content !== undefined && edit.prev_rendered_content !== undefined) {
        content = version.prev_content = edit.prev_content;
        renderedContent = version.prev_rendered_content = edit.prev_rendered_content;
      }
      if (edit.prev_stream !== undefined)
        Object.assign(version, { prev_stream: edit.prev_stream, stream: edit.stream });
      newestFirst.push(version);
    }
    newestFirst.push({
      content,
      rendered_content: renderedContent,
      timestamp: message.timestamp,
      topic: shown(topic),
      user_id: message.senderId,
    });
    return { message_history: newestFirst.reverse() };
  };
