import {
  messagingEvents,
  type HandlerContext,
  type messaging,
  type PayloadOf,
  type EventPublisher,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { messageAudience } from "./message-audience";
import type { MessageDoc, Reaction } from "./message.schema";
import type { ReceiverCache } from "../user-messages/receiver-cache";

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

/** Zulip's notify_reaction_update: the reaction event, published before the reply (see EventCache). */
export async function publishReaction(
  deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    receivers: ReceiverCache;
    events: EventPublisher<"messaging">;
  },
  ctx: HandlerContext,
  realmId: number,
  message: MessageDoc,
  reaction: Reaction,
  op: "add" | "remove",
): Promise<void> {
  const [userIds, users] = await Promise.all([
    // the reacting user may just have gained a historical row
    deps.receivers
      .receiversOf(realmId, message)
      .then((receivers) => messageAudience(deps, realmId, message.streamId, [...receivers, reaction.userId])),
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
