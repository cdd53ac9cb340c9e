import type { Actor, CallContext, UserGroupMemberships } from "@teamchat/shared";
import { canReadContent, canReadHistory } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { NarrowResolver } from "../narrow";

/** Answers narrow.ts' look-ups from messaging's repositories for one user. */
export async function narrowResolver(
  deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    conversations: ConversationRepository;
    personal: PersonalIndex;
    userGroups: UserGroupMemberships;
  },
  ctx: CallContext,
  realmId: number,
  actor: Actor,
  emptyTopicName: string,
): Promise<NarrowResolver> {
  const [subscribed, groups] = await Promise.all([
    deps.subscriptions.subscribedStreamIds(realmId, actor.userId),
    deps.userGroups.get(ctx),
  ]);
  return {
    userId: actor.userId,
    emptyTopicName,
    async channel(operand) {
      const ch =
        typeof operand === "number"
          ? await deps.channels.byId(realmId, operand)
          : await deps.channels.byName(realmId, operand);
      if (!ch) return null;
      const sub = subscribed.has(ch.streamId);
      if (!canReadContent(actor, ch, sub, groups) && !sub) return null;
      return { streamId: ch.streamId, fullHistory: canReadHistory(actor, ch, sub, groups) };
    },
    async users(operands) {
      const ids = operands.filter((o): o is number => typeof o === "number");
      const emails = operands.filter((o): o is string => typeof o === "string");
      const [byId, byEmail] = await Promise.all([
        deps.users.byIds(ctx, realmId, ids),
        emails.length ? deps.users.byEmails(ctx, realmId, emails) : new Map(),
      ]);
      if (byId.size !== new Set(ids).size || byEmail.size !== new Set(emails).size) return null;
      return [...new Set([...byId.keys(), ...[...byEmail.values()].map((u) => u.user_id as number)])];
    },
    async conversation(userIds) {
      return (await deps.conversations.byUsers(realmId, userIds))?.recipientId ?? null;
    },
    flagged: async (flag) => (await deps.personal.of(realmId, actor.userId)).withFlag(flag),
    unread: async () => (await deps.personal.of(realmId, actor.userId)).unread.ids,
    async publicChannels() {
      return (await deps.channels.all(realmId))
        .filter((ch) => !ch.inviteOnly && canReadHistory(actor, ch, subscribed.has(ch.streamId), groups))
        .map((ch) => ch.streamId);
    },
  };
}
