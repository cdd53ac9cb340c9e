import { messagingEvents, type HandlerContext, type EventPublisher, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "./channel-directory";
import type { MessageRepository } from "../messages/message.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import { metadataAudience } from "../subscriptions/subscribe-users";

/**
 * After messages left or entered a channel (deleted, moved): its
 * first_message_id follows its oldest message, and those who see the channel
 * hear of a new oldest message with Zulip's stream op:update event. The
 * channel is read again only when the change can have moved its oldest
 * message: its first message left, or an older one entered.
 */
export async function refreshFirstMessage(
  deps: {
    channels: ChannelDirectory;
    messages: MessageRepository;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
    userGroups: UserGroupMemberships;
  },
  ctx: HandlerContext,
  realmId: number,
  streamId: number,
  changed: { left?: number[]; entered?: number[] },
): Promise<void> {
  const channel = await deps.channels.byId(realmId, streamId);
  if (!channel) return;
  const first = channel.firstMessageId;
  const mayHaveMoved =
    first === null || (changed.left ?? []).includes(first) || (changed.entered ?? []).some((id) => id < first);
  if (!mayHaveMoved) return;
  const oldest = await deps.messages.oldestIdOfChannel(realmId, streamId);
  if (oldest === channel.firstMessageId) return;
  await deps.channels.setOldestMessage(realmId, streamId, oldest);
  // zulip.yaml's event value cannot be null: clients learn of an emptied channel from GET /streams
  if (oldest === null) return;
  const subscribers = await deps.subscriptions.subscriberIds(realmId, streamId);
  deps.events.publish(
    messagingEvents.streamUpdated,
    {
      realmId,
      userIds: await metadataAudience(deps, ctx, realmId, channel, subscribers),
      event: {
        type: "stream",
        op: "update",
        stream_id: streamId,
        name: channel.name,
        property: "first_message_id",
        value: oldest,
      },
    },
    ctx.requestId,
  );
}
