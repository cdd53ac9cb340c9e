import type { MessageRepository } from "../messages/message.repository";
import type { ReadStateRepository } from "../user-messages/read-state.repository";
import { messagingEvents, type HandlerContext, type UserGroupMemberships, type EventPublisher } from "@teamchat/shared";
import { canSeeMetadata } from "../channels/channel-access";
import { channelView, subscriptionView } from "../channels/channel-view";
import type { ChannelDoc } from "../channels/channel.schema";
import type { UserDirectory } from "../users/user-directory";
import type { SubscriptionDirectory } from "./subscription-directory";

/** Active users who may see that the channel exists (Zulip's can_access_stream_metadata_user_ids). */
export async function metadataAudience(
  deps: { users: UserDirectory; userGroups: UserGroupMemberships },
  ctx: HandlerContext,
  realmId: number,
  ch: ChannelDoc,
  subscriberIds: number[],
): Promise<number[]> {
  const subs = new Set(subscriberIds);
  const [users, groups] = await Promise.all([deps.users.all(ctx, realmId), deps.userGroups.get(ctx)]);
  return users
    .filter((u) => u.is_active && canSeeMetadata({ userId: u.user_id, role: u.role }, ch, subs.has(u.user_id), groups))
    .map((u) => u.user_id)
    .sort((a, b) => a - b);
}

export interface SubscribedPair {
  userId: number;
  channel: ChannelDoc;
}

/**
 * Subscribes users to channels and tells everyone concerned: `stream` create events
 * for new channels, `subscription` add to each new subscriber, peer_add to others who
 * can see the channel. Returns which (user, channel) pairs were new.
 */
export async function subscribeUsers(
  deps: {
    subscriptions: SubscriptionDirectory;
    messages: MessageRepository;
    readStates: ReadStateRepository;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    userGroups: UserGroupMemberships;
  },
  ctx: HandlerContext,
  realmId: number,
  channels: ChannelDoc[],
  userIds: number[],
  created: ChannelDoc[] = [],
  /** the color asked for each channel's new subscriptions, by channel id */
  colors = new Map<number, string>(),
): Promise<{ added: SubscribedPair[]; already: SubscribedPair[] }> {
  const pairs = channels.flatMap((ch) =>
    userIds.map((userId) => ({ userId, streamId: ch.streamId, color: colors.get(ch.streamId) })),
  );
  const addedRows = await deps.subscriptions.add(realmId, pairs);
  // the new subscriptions receive what is sent from now on (read-state.ts): read after they are stored, so
  // that every message whose receivers include them is covered
  const after = addedRows.length ? await deps.messages.latestId() : 0;
  await deps.readStates.open(realmId, addedRows, after);
  const isNew = new Set(addedRows.map((r) => `${r.userId}:${r.streamId}`));
  const byId = new Map(channels.map((c) => [c.streamId, c]));
  const result: { added: SubscribedPair[]; already: SubscribedPair[] } = { added: [], already: [] };
  for (const p of pairs) {
    (isNew.has(`${p.userId}:${p.streamId}`) ? result.added : result.already).push({
      userId: p.userId,
      channel: byId.get(p.streamId)!,
    });
  }

  const subscribers = await deps.subscriptions.subscribersByChannel(
    realmId,
    channels.map((c) => c.streamId),
  );
  for (const ch of created) {
    const audience = await metadataAudience(deps, ctx, realmId, ch, subscribers.get(ch.streamId)!);
    deps.events.publish(
      messagingEvents.streamCreated,
      { realmId, userIds: audience, event: { type: "stream", op: "create", streams: [channelView(ch)] } },
      ctx.requestId,
    );
  }
  for (const userId of new Set(addedRows.map((r) => r.userId))) {
    const mine = addedRows.filter((r) => r.userId === userId);
    const subscriptions = mine.map((r) => subscriptionView(byId.get(r.streamId)!, r, subscribers.get(r.streamId)));
    deps.events.publish(
      messagingEvents.subscriptionChanged,
      { realmId, userIds: [userId], event: { type: "subscription", op: "add", subscriptions } },
      ctx.requestId,
    );
  }
  await publishPeerChanges(deps, ctx, realmId, "peer_add", channels, addedRows, subscribers);
  return result;
}

/**
 * Zulip's peer_add / peer_remove: per channel, the users who joined or left
 * it, told to the others who may see the channel's subscribers.
 */
export async function publishPeerChanges(
  deps: { users: UserDirectory; userGroups: UserGroupMemberships; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  op: "peer_add" | "peer_remove",
  channels: ChannelDoc[],
  changed: Array<{ userId: number; streamId: number }>,
  subscribers: Map<number, number[]>,
): Promise<void> {
  for (const ch of channels) {
    const userIds = changed.filter((r) => r.streamId === ch.streamId).map((r) => r.userId);
    if (!userIds.length) continue;
    const peers = (await metadataAudience(deps, ctx, realmId, ch, subscribers.get(ch.streamId)!)).filter(
      (id) => !userIds.includes(id),
    );
    deps.events.publish(
      messagingEvents.subscriptionChanged,
      {
        realmId,
        userIds: peers,
        event: { type: "subscription", op, stream_ids: [ch.streamId], user_ids: userIds.sort((a, b) => a - b) },
      },
      ctx.requestId,
    );
  }
}
