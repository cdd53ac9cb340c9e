import {
  ZulipError,
  badRequest,
  emojiByName,
  reactionTypeOf,
  requireUser,
  type Handler,
  type ReactionType,
  type messaging,
  type UserGroupMemberships,
  type EventPublisher,
  type RealmEmojiSource,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { accessMessage } from "../messages/message-access";
import { publishReaction } from "../messages/message-reactions";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/**
 * DELETE /messages/{message_id}/reactions (Zulip's remove_reaction): the
 * caller's reaction with this code and type (unicode_emoji unless said; a name
 * alone stands for its code). Not checked against the emoji data, as Zulip does
 * not: the reaction was valid when added.
 */
export const removeReactionHandler =
  (deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    realmEmoji: RealmEmojiSource;
  }): Handler<typeof messaging.removeReaction> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const message = await accessMessage(deps, realm.id, actor, p.message_id, ctx);
    let emojiCode = p.emoji_code;
    if (emojiCode === undefined) {
      if (p.emoji_name === undefined) {
        throw badRequest("At least one of the following arguments must be present: emoji_name, emoji_code");
      }
      emojiCode = emojiByName(p.emoji_name, await deps.realmEmoji.get(ctx)).emojiCode;
    }
    const removed = await deps.messages.removeReaction(realm.id, message.messageId, {
      userId: actor.userId,
      emojiCode,
      // a type Zulip does not know matches no reaction
      reactionType: reactionTypeOf(p.reaction_type) as ReactionType,
    });
    if (!removed) throw new ZulipError("REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
    await publishReaction(deps, ctx, realm.id, message, removed, "remove");
    return {};
  };
