import { badRequest, type Actor, type CallContext, type UserGroupMemberships } from "@teamchat/shared";
import { canReadContent } from "../channels/channel-access";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";

/**
 * The channel whose topic the user mutes, unmutes or follows. Setting a
 * policy needs Zulip's access_stream_by_id / access_stream_by_name: a channel
 * not archived whose messages the user may read, else "Invalid channel ID" /
 * "Invalid channel name '…'". Removing one needs only a channel of the
 * organization (access_stream_to_remove_visibility_policy_by_*: the user may
 * have lost access since), else `removalError`.
 */
export async function accessChannelForUserTopic(
  deps: { channels: ChannelDirectory; subscriptions: SubscriptionDirectory; userGroups: UserGroupMemberships },
  realmId: number,
  actor: Actor,
  target: { streamId: number } | { name: string },
  removing: { error: string } | null,
  ctx: CallContext,
): Promise<ChannelDoc> {
  const channel =
    "streamId" in target
      ? await deps.channels.byId(realmId, target.streamId)
      : await deps.channels.byName(realmId, target.name);
  const error = "streamId" in target ? "Invalid channel ID" : `Invalid channel name '${target.name}'`;
  if (removing) {
    if (!channel) throw badRequest(removing.error);
    return channel;
  }
  if (!channel || channel.isArchived) throw badRequest(error);
  const [subscribed, groups] = await Promise.all([
    deps.subscriptions.isSubscribed(realmId, actor.userId, channel.streamId),
    deps.userGroups.get(ctx),
  ]);
  if (!canReadContent(actor, channel, subscribed, groups)) throw badRequest(error);
  return channel;
}
