import {
  ZulipError,
  checkEmojiRequest,
  emojiByName,
  reactionTypeOf,
  requireUser,
  type Handler,
  type messaging,
  type UserGroupMemberships,
  type EventPublisher,
  type RealmEmojiSource,
} from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { UserDirectory } from "../users/user-directory";
import { accessMessage } from "../messages/message-access";
import { publishReaction } from "../messages/message-reactions";
import type { Reaction } from "../messages/message.schema";
import { HISTORICAL_FLAGS } from "../user-messages/flag-changes";
import type { ReceiverCache } from "../user-messages/receiver-cache";

const reactionExists = () => new ZulipError("REACTION_ALREADY_EXISTS", "Reaction already exists.");

/**
 * POST /messages/{message_id}/reactions (Zulip's check_add_reaction): a name
 * alone stands for the emoji it names now; a message the user never received
 * (a channel's shared history) gets a historical row, as Zulip makes one.
 */
export const addReactionHandler =
  (deps: {
    messages: MessageRepository;
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
    userMessages: UserMessageRepository;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    realmEmoji: RealmEmojiSource;
  }): Handler<typeof messaging.addReaction> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [message, custom] = await Promise.all([
      accessMessage(deps, realm.id, actor, p.message_id, ctx),
      deps.realmEmoji.get(ctx),
    ]);
    let emojiCode = p.emoji_code;
    let reactionType = p.reaction_type === undefined ? undefined : reactionTypeOf(p.reaction_type);
    if (emojiCode === undefined || reactionType === undefined) {
      const named = emojiByName(p.emoji_name, custom);
      emojiCode ??= named.emojiCode;
      reactionType ??= named.reactionType;
    }
    const reactions = message.reactions ?? [];
    const sameEmoji = (r: Reaction) => r.emojiCode === emojiCode && r.reactionType === reactionType;
    if (reactions.some((r) => sameEmoji(r) && r.userId === actor.userId)) throw reactionExists();
    // A vote for another user's reaction with this emoji takes that reaction's name unchecked, as Zulip
    // does: one emoji shows under one name, and the emoji may no longer pass the checks (a custom emoji since deactivated).
    const vote = reactions.find(sameEmoji);
    let reaction: Reaction;
    if (vote) {
      reaction = { ...vote, userId: actor.userId };
    } else {
      checkEmojiRequest(p.emoji_name, emojiCode, reactionType, custom);
      reaction = { emojiName: p.emoji_name, emojiCode, reactionType, userId: actor.userId };
    }

    if (!(await deps.receivers.received(realm.id, message, actor.userId))) {
      await deps.userMessages.addHistorical(realm.id, actor.userId, [
        { messageId: message.messageId, flags: HISTORICAL_FLAGS },
      ]);
    }
    // the same reaction added meanwhile by a concurrent request
    if (!(await deps.messages.addReaction(realm.id, message.messageId, reaction))) throw reactionExists();
    await publishReaction(deps, ctx, realm.id, message, reaction, "add");
    return {};
  };
