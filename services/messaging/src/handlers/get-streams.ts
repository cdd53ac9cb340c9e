import {
  isGuest,
  messaging,
  requireUser,
  type Handler,
  type HandlerContext,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { canReadContent, canSeeMetadata } from "../channels/channel-access";
import { channelView } from "../channels/channel-view";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";
import type { ChannelDirectory } from "../channels/channel-directory";

/** The channels a bot's owner is subscribed to (none for a user who is not a bot). */
async function ownerSubscriptions(
  deps: { subscriptions: SubscriptionDirectory; users: UserDirectory },
  ctx: HandlerContext,
  realmId: number,
  userId: number,
): Promise<ReadonlySet<number>> {
  const ownerId = (await deps.users.byIds(ctx, realmId, [userId])).get(userId)?.bot_owner_id;
  return ownerId ? deps.subscriptions.subscribedStreamIds(realmId, ownerId) : new Set();
}

/**
 * GET /streams (Zulip's get_streams_for_user): the channels of the sources the
 * user asks for, by name. include_all is every channel the user may see
 * (administrators: all of them), include_can_access_content every channel
 * they may read; otherwise the union of subscribed, public (never for
 * guests), web-public and default channels; include_owner_subscribed adds,
 * for a bot, its owner's subscriptions.
 */
export const getStreamsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
    users: UserDirectory;
  }): Handler<typeof messaging.getStreams> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [channels, subscribed, groups, ownerSubscribed] = await Promise.all([
      deps.channels.all(realm.id),
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
      deps.userGroups.get(ctx),
      p.include_owner_subscribed ? ownerSubscriptions(deps, ctx, realm.id, actor.userId) : new Set<number>(),
    ]);
    const wanted = (ch: (typeof channels)[number]): boolean => {
      const isSubscribed = subscribed.has(ch.streamId);
      if (p.include_all || p.include_all_active) return canSeeMetadata(actor, ch, isSubscribed, groups);
      if (p.include_can_access_content) return canReadContent(actor, ch, isSubscribed, groups);
      return (
        (p.include_subscribed && isSubscribed) ||
        ownerSubscribed.has(ch.streamId) ||
        (p.include_public && !ch.inviteOnly && !isGuest(actor)) ||
        (p.include_web_public && ch.isWebPublic && !ch.isArchived) ||
        (p.include_default && ch.isDefault && canSeeMetadata(actor, ch, isSubscribed, groups))
      );
    };
    const streams = channels
      .filter((ch) => !(p.exclude_archived && ch.isArchived) && wanted(ch))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((ch) => ({ ...channelView(ch), ...(p.include_default ? { is_default: ch.isDefault } : {}) }));
    return { streams };
  };
