import type { Actor, CallContext, UserGroupMemberships } from "@teamchat/shared";
import { canReadContent, canReadHistory } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { UserTopicIndex } from "../user-topics/user-topic-index";
import type { NarrowResolver } from "./conditions";
import type { MessageRepository } from "../messages/message.repository";
import { canSeeMessage } from "../messages/message-access";
import { MENTION_FLAGS } from "../user-messages/flags";
import type { ReceiverCache } from "../user-messages/receiver-cache";

/** Answers conditions.ts' look-ups from messaging's repositories for one user. */
export async function narrowResolver(
  deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    conversations: ConversationRepository;
    personal: PersonalIndex;
    userTopics: UserTopicIndex;
    messages: MessageRepository;
    userGroups: UserGroupMemberships;
    receivers: ReceiverCache;
  },
  ctx: CallContext,
  realmId: number,
  actor: Actor,
  emptyTopicName: string,
): Promise<NarrowResolver> {
  const [subscriptions, groups] = await Promise.all([
    deps.subscriptions.ofUser(realmId, actor.userId),
    deps.userGroups.get(ctx),
  ]);
  const active = subscriptions.filter((s) => s.active);
  const subscribed = new Set(active.map((s) => s.streamId));
  // one request's unread ids, listed once: an is:unread narrow and its first_unread anchor both ask
  let unread: Promise<number[]> | undefined;
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
    async message(messageId) {
      const m = await deps.messages.byId(realmId, messageId);
      if (!m || !(await canSeeMessage(deps, realmId, actor, m, ctx))) return null;
      return m.streamId === null ? { participants: m.receivers } : { streamId: m.streamId, topic: m.topic };
    },
    flagged: async (flags) => (await deps.personal.of(realmId, actor.userId)).withAnyFlag(flags),
    async mentioned() {
      const view = await deps.personal.of(realmId, actor.userId);
      // the rows' mention flags, and @all mentions, which the messages hold for those who received them
      const ids = new Set([
        ...view.withAnyFlag(MENTION_FLAGS),
        ...(await deps.messages.channelWildcards(realmId, view.received)),
      ]);
      return [...ids].sort((a, b) => a - b);
    },
    unread: () => (unread ??= deps.personal.of(realmId, actor.userId).then((view) => view.unreadIds)),
    received: async () => (await deps.personal.of(realmId, actor.userId)).withRows,
    async topicsWithPolicy(policies) {
      return (await deps.userTopics.of(realmId, actor.userId))
        .all()
        .filter((t) => policies.includes(t.visibilityPolicy))
        .map((t) => ({ streamId: t.streamId, key: t.topicName.toLowerCase() }));
    },
    mutedChannels: async () => active.filter((s) => s.isMuted).map((s) => s.streamId),
    async publicChannels(webPublicOnly) {
      return (await deps.channels.all(realmId))
        .filter((ch) => (webPublicOnly ? ch.isWebPublic : !ch.inviteOnly))
        .filter((ch) => canReadHistory(actor, ch, subscribed.has(ch.streamId), groups))
        .map((ch) => ch.streamId);
    },
  };
}
