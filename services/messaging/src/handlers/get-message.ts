import { requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { Deps } from "../deps";
import { accessMessage } from "../messages/message-access";
import { loadViewContext, messageView } from "../messages/message-view";

/**
 * GET /messages/{message_id} (Zulip's json_fetch_raw_message): the message as
 * GET /messages shows it, with the caller's flags (["read", "historical"] for
 * one seen through a channel's history), and its Markdown as raw_content.
 * Avatars as for a client_gravatar client, as Zulip does here.
 */
export const getMessageHandler =
  (
    deps: Deps<
      "messages" | "personal" | "channels" | "subscriptions" | "userGroups" | "users" | "settings" | "linkifiers"
    >,
  ): Handler<typeof messaging.getMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    const settings = await deps.settings.get(ctx);
    const [personal, vc] = await Promise.all([
      deps.personal.of(realm.id, actor.userId),
      loadViewContext(deps, ctx, realm, settings, [message], {
        applyMarkdown: p.apply_markdown,
        clientGravatar: true,
        allowEmptyTopicName: p.allow_empty_topic_name,
      }),
    ]);
    return {
      raw_content: message.content,
      message: Object.assign(messageView(message, vc), { flags: personal.of(message, actor.userId) }),
    };
  };
