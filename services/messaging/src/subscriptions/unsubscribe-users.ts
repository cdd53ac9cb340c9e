import { closed } from "../user-messages/read-state";
import type { MessageRepository } from "../messages/message.repository";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import {
  isAdmin,
  messagingEvents,
  type HandlerContext,
  type EventPublisher,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { canSeeMetadata } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import type { SubscriptionDirectory } from "./subscription-directory";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import type { PersonalIndex } from "../user-messages/personal-index";
import { markChannelRead } from "../user-messages/flag-changes";
import type { UserSummary, UserDirectory } from "../users/user-directory";
import { publishPeerChanges, type SubscribedPair } from "./subscribe-users";

/**
 * Zulip's bulk_remove_subscriptions: unsubscribes each user from each channel
 * and tells everyone concerned: `subscription` remove to each user unsubscribed,
 * with their unread messages there marked read (Zulip's deferred
 * mark_stream_messages_as_read) and `stream` delete for channels they may no
 * longer see; peer_remove to the others who may see the channel's subscribers.
 * Returns which (user, channel) pairs were removed and which were not subscribed.
 */
export async function unsubscribeUsers(
  deps: {
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    personal: PersonalIndex;
    userGroups: UserGroupMemberships;
  },
  ctx: HandlerContext,
  realmId: number,
  channels: ChannelDoc[],
  users: UserSummary[],
): Promise<{ removed: SubscribedPair[]; notRemoved: SubscribedPair[] }> {
  const pairs = users.flatMap((u) => channels.map((ch) => ({ userId: u.user_id, streamId: ch.streamId })));
  const removedRows = await deps.subscriptions.remove(realmId, pairs);
  const until = removedRows.length ? await deps.messages.latestId() : 0;
  for (const r of removedRows) await deps.readStates.change(realmId, r.userId, r.streamId, (s) => closed(s, until));
  const wasRemoved = new Set(removedRows.map((r) => `${r.userId}:${r.streamId}`));
  const byId = new Map(channels.map((c) => [c.streamId, c]));
  const result: { removed: SubscribedPair[]; notRemoved: SubscribedPair[] } = { removed: [], notRemoved: [] };
  for (const p of pairs) {
    (wasRemoved.has(`${p.userId}:${p.streamId}`) ? result.removed : result.notRemoved).push({
      userId: p.userId,
      channel: byId.get(p.streamId)!,
    });
  }

  for (const user of users) {
    const mine = result.removed.filter((r) => r.userId === user.user_id).map((r) => r.channel);
    if (!mine.length) continue;
    deps.events.publish(
      messagingEvents.subscriptionChanged,
      {
        realmId,
        userIds: [user.user_id],
        event: {
          type: "subscription",
          op: "remove",
          subscriptions: mine.map((ch) => ({ name: ch.name, stream_id: ch.streamId })),
        },
      },
      ctx.requestId,
    );
    for (const ch of mine) await markChannelRead(deps, ctx, realmId, user.user_id, ch.streamId, null);
    const member = { userId: user.user_id, role: user.role };
    const groups = await deps.userGroups.get(ctx);
    const hidden = isAdmin(member) ? [] : mine.filter((ch) => !canSeeMetadata(member, ch, false, groups));
    if (hidden.length) {
      deps.events.publish(
        messagingEvents.streamDeleted,
        {
          realmId,
          userIds: [user.user_id],
          event: {
            type: "stream",
            op: "delete",
            streams: hidden.map((ch) => ({ stream_id: ch.streamId })),
            stream_ids: hidden.map((ch) => ch.streamId),
          },
        },
        ctx.requestId,
      );
    }
  }

  const subscribers = await deps.subscriptions.subscribersByChannel(
    realmId,
    channels.map((c) => c.streamId),
  );
  await publishPeerChanges(deps, ctx, realmId, "peer_remove", channels, removedRows, subscribers);
  return result;
}
