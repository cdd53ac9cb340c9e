import { requireUser, type Handler, type messaging, type UserGroupMemberships } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { LinkifierSource } from "../render/linkifier-source";
import { accessMessage } from "../messages/message-access";
import { loadViewContext, messageView } from "../messages/message-view";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * GET /messages/{message_id} (Zulip's json_fetch_raw_message): the message as
 * GET /messages shows it, with the caller's flags (["read", "historical"] for
 * one seen through a channel's history), and its Markdown as raw_content.
 * Avatars as for a client_gravatar client, as Zulip does here.
 */
export const getMessageHandler =
  (deps: {
    messages: MessageRepository;
    personal: PersonalIndex;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    users: UserDirectory;
    settings: RealmSettingsSource;
    linkifiers: LinkifierSource;
  }): Handler<typeof messaging.getMessage> =>
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
      message: Object.assign(messageView(message, vc), { flags: personal.of(message) }),
    };
  };
