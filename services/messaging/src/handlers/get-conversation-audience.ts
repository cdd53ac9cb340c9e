import { badRequest, messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { accessMessage } from "../messages/message-access";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * Internal, for typing notifications (Zulip's zerver/views/typing.py): who is in a
 * channel topic, a direct conversation, or a message's conversation, refusing with
 * Zulip's errors what the actor may not see.
 */
export const getConversationAudienceHandler =
  (deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    users: UserDirectory;
  }): Handler<typeof messaging.getConversationAudience> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const realmId = realm.id;
    if (p.message_id !== undefined) {
      const msg = await accessMessage(deps, realmId, actor, p.message_id, ctx);
      if (msg.streamId === null) return { user_ids: msg.receivers };
      return {
        user_ids: await deps.subscriptions.subscriberIds(realmId, msg.streamId),
        stream_id: msg.streamId,
        topic: msg.topic,
      };
    }
    if (p.stream_id !== undefined) {
      const { channel } = await accessChannelById(deps, realmId, actor, p.stream_id, ctx, "content");
      return {
        user_ids: await deps.subscriptions.subscriberIds(realmId, channel.streamId),
        stream_id: channel.streamId,
        ...(p.topic !== undefined ? { topic: p.topic } : {}),
      };
    }
    const to = [...new Set(p.to ?? [])];
    if (to.length === 0) throw badRequest("Empty 'to' list");
    const users = await deps.users.byIds(ctx, realmId, to);
    const unknown = to.find((id) => !users.has(id));
    if (unknown !== undefined) throw badRequest(`Invalid user ID ${unknown}`);
    return { user_ids: [...new Set([...to, actor.userId])].sort((a, b) => a - b) };
  };
