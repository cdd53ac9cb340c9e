import { isGuest, messagingEvents, type HandlerContext, type PayloadOf, type EventPublisher } from "@teamchat/shared";
import type { ChannelDirectory } from "./channel-directory";
import type { UserDirectory } from "../users/user-directory";
import { channelView } from "./channel-view";
import type { ChannelDoc } from "./channel.schema";

type StreamUpdate = PayloadOf<typeof messagingEvents.streamUpdated>["event"];

/**
 * Zulip's stream op:update for one property, to `userIds` (those who may see
 * the channel, Zulip's can_access_stream_metadata_user_ids). `name` is the
 * channel's name when the event is sent (the old one for a rename).
 */
export function publishStreamUpdate(
  deps: { events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userIds: number[],
  update: Omit<StreamUpdate, "type" | "op">,
): void {
  deps.events.publish(
    messagingEvents.streamUpdated,
    { realmId, userIds, event: { type: "stream", op: "update", ...update } },
    ctx.requestId,
  );
}

/**
 * Users who now see a channel they did not (made public, or put in a group
 * that grants metadata access): Zulip sends them the channel as new, and its
 * subscribers as peer_add, instead of the update.
 */
export function publishChannelRevealed(
  deps: { events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userIds: number[],
  channel: ChannelDoc,
  subscriberIds: number[],
): void {
  deps.events.publish(
    messagingEvents.streamCreated,
    { realmId, userIds, event: { type: "stream", op: "create", streams: [channelView(channel)] } },
    ctx.requestId,
  );
  deps.events.publish(
    messagingEvents.subscriptionChanged,
    {
      realmId,
      userIds,
      event: { type: "subscription", op: "peer_add", stream_ids: [channel.streamId], user_ids: subscriberIds },
    },
    ctx.requestId,
  );
}

/** Users who no longer see the channel: Zulip's stream op:delete. */
export function publishChannelHidden(
  deps: { events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
  userIds: number[],
  streamId: number,
): void {
  deps.events.publish(
    messagingEvents.streamDeleted,
    {
      realmId,
      userIds,
      event: { type: "stream", op: "delete", streams: [{ stream_id: streamId }], stream_ids: [streamId] },
    },
    ctx.requestId,
  );
}

/** Zulip's notify_default_streams: every default channel id, to active members (not guests). */
export async function publishDefaultStreams(
  deps: { channels: ChannelDirectory; users: UserDirectory; events: EventPublisher<"messaging"> },
  ctx: HandlerContext,
  realmId: number,
): Promise<void> {
  const users = await deps.users.all(ctx, realmId);
  deps.events.publish(
    messagingEvents.defaultStreamsChanged,
    {
      realmId,
      userIds: users.filter((u) => u.is_active && !isGuest(u)).map((u) => u.user_id),
      event: { type: "default_streams", default_streams: await deps.channels.defaultIds(realmId) },
    },
    ctx.requestId,
  );
}
