import { badRequest, requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { Deps } from "../deps";
import { accessMessage } from "../messages/message-access";
import { topicForClient } from "../messages/message-view";

/**
 * GET /messages/{message_id}/history (Zulip's get_message_edit_history): the
 * versions of the message, oldest first, refused when the organization hides
 * edit history. Messages are not edited yet, so the history is the message as
 * sent; edits will add their entries after it.
 */
export const getMessageHistoryHandler =
  (deps: Deps<"messages" | "channels" | "subscriptions" | "settings">): Handler<typeof messaging.getMessageHistory> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const settings = await deps.settings.get(ctx);
    if (settings.message_edit_history_visibility_policy === "none") {
      throw badRequest("Message edit history is disabled in this organization");
    }
    const message = await accessMessage(deps, realm.id, actor, p.message_id);
    const topic =
      message.type === "stream" ? topicForClient(message.topic, p.allow_empty_topic_name, settings) : message.topic;
    return {
      message_history: [
        {
          topic,
          content: message.content,
          rendered_content: message.renderedContent,
          timestamp: message.timestamp,
          user_id: message.senderId,
        },
      ],
    };
  };
