import type { Actor, CallContext } from "@teamchat/shared";
import { canReadContent, canReadHistory } from "../channels/channel-access";
import type { Messaging } from "../context";
import type { NarrowResolver } from "../narrow";

/** Answers narrow.ts' look-ups from messaging's repositories for one user. */
export async function narrowResolver(
  m: Messaging,
  ctx: CallContext,
  actor: Actor,
  emptyTopicName: string,
): Promise<NarrowResolver> {
  const realmId = actor.realmId;
  const subscribed = await m.subscriptions.subscribedStreamIds(realmId, actor.userId);
  return {
    userId: actor.userId,
    emptyTopicName,
    async channel(operand) {
      const ch =
        typeof operand === "number"
          ? await m.channels.byId(realmId, operand)
          : await m.channels.byName(realmId, operand);
      if (!ch) return null;
      const sub = subscribed.has(ch.streamId);
      if (!canReadContent(actor, ch, sub) && !sub) return null;
      return { streamId: ch.streamId, fullHistory: canReadHistory(actor, ch, sub) };
    },
    async users(operands) {
      const ids = operands.filter((o): o is number => typeof o === "number");
      const emails = operands.filter((o): o is string => typeof o === "string");
      const [byId, byEmail] = await Promise.all([
        m.users.byIds(ctx, realmId, ids),
        emails.length ? m.users.byEmails(ctx, realmId, emails) : new Map(),
      ]);
      if (byId.size !== new Set(ids).size || byEmail.size !== new Set(emails).size) return null;
      return [...new Set([...byId.keys(), ...[...byEmail.values()].map((u) => u.user_id as number)])];
    },
    async conversation(userIds) {
      return (await m.conversations.byUsers(realmId, userIds))?.recipientId ?? null;
    },
    flagged: (flag, has) => m.userMessages.idsWithFlag(realmId, actor.userId, flag, has),
    async publicChannels() {
      return (await m.channels.all(realmId))
        .filter((ch) => !ch.inviteOnly && canReadHistory(actor, ch, subscribed.has(ch.streamId)))
        .map((ch) => ch.streamId);
    },
  };
}
