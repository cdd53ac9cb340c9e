import { messagingEvents, type HandlerContext, type messaging, type PayloadOf } from "@teamchat/shared";
import type { Deps } from "../deps";
import type { MessageDoc, Reaction } from "./message.schema";

/** What identifies a reaction: Zulip keeps one per user, emoji code and reaction type. */
export type ReactionKey = Pick<Reaction, "userId" | "emojiCode" | "reactionType">;

export const sameReaction = (a: ReactionKey, b: ReactionKey): boolean =>
  a.userId === b.userId && a.emojiCode === b.emojiCode && a.reactionType === b.reactionType;

/** Zulip's reaction object, as messages carry it. */
export const reactionView = (r: Reaction): messaging.Reaction => ({
  emoji_name: r.emojiName,
  emoji_code: r.emojiCode,
  reaction_type: r.reactionType,
  user_id: r.userId,
});

type ReactionChanged = PayloadOf<typeof messagingEvents.reactionChanged>;

/**
 * A reaction event applied to a copy of its message (the caches'): idempotent,
 * as EventCache requires, since a copy being loaded may already hold it.
 */
export function applyReaction(message: MessageDoc, { event }: ReactionChanged): void {
  const reaction: Reaction = {
    emojiName: event.emoji_name,
    emojiCode: event.emoji_code,
    reactionType: event.reaction_type,
    userId: event.user_id,
  };
  const reactions = message.reactions ?? [];
  const present = reactions.some((r) => sameReaction(r, reaction));
  if (event.op === "add" && !present) message.reactions = [...reactions, reaction];
  if (event.op === "remove" && present) message.reactions = reactions.filter((r) => !sameReaction(r, reaction));
}

/**
 * Zulip's event_recipient_ids_for_action_on_messages for one message: a direct
 * message's participants; in a channel with protected history, its
 * subscribers who received it; in a private channel with shared history, its
 * subscribers; in a public channel, its subscribers and whoever has a row of
 * the message (those who received it, and `actor`, who may just have gained a
 * historical row). Other users' historical rows are not found here: rows are
 * not indexed by message.
 */
async function reactionAudience(
  deps: Deps<"channels" | "subscriptions">,
  realmId: number,
  message: MessageDoc,
  actor: number,
): Promise<number[]> {
  if (message.streamId === null) return message.receivers;
  const [channel, subscribers] = await Promise.all([
    deps.channels.byId(realmId, message.streamId),
    deps.subscriptions.subscriberIds(realmId, message.streamId),
  ]);
  if (!channel) return [];
  if (channel.inviteOnly && !channel.historyPublicToSubscribers) {
    return message.receivers.filter((id) => subscribers.includes(id));
  }
  if (channel.inviteOnly) return subscribers;
  return [...new Set([...subscribers, ...message.receivers, actor])].sort((a, b) => a - b);
}

/** Zulip's notify_reaction_update: the reaction event, published before the reply (see EventCache). */
export async function publishReaction(
  deps: Deps<"channels" | "subscriptions" | "users" | "events">,
  ctx: HandlerContext,
  realmId: number,
  message: MessageDoc,
  reaction: Reaction,
  op: "add" | "remove",
): Promise<void> {
  const [userIds, users] = await Promise.all([
    reactionAudience(deps, realmId, message, reaction.userId),
    deps.users.byIds(ctx, realmId, [reaction.userId]),
  ]);
  const user = users.get(reaction.userId);
  deps.events.publish(
    messagingEvents.reactionChanged,
    {
      realmId,
      userIds,
      streamId: message.streamId,
      event: {
        type: "reaction",
        op,
        ...reactionView(reaction),
        user: { user_id: reaction.userId, email: user?.email ?? "", full_name: user?.full_name ?? "" },
        message_id: message.messageId,
      },
    },
    ctx.requestId,
  );
}
