import { isGuest, messaging, requireUser, type Handler } from "@teamchat/shared";
import { canReadContent, canSeeMetadata } from "../channels/channel-access";
import { channelView } from "../channels/channel-view";
import type { Deps } from "../deps";

/**
 * GET /streams (Zulip's get_streams_for_user): the channels of the sources the
 * user asks for, by name. include_all is every channel the user may see
 * (administrators: all of them), include_can_access_content every channel
 * they may read; otherwise the union of subscribed, public (never for
 * guests), web-public and default channels. include_owner_subscribed adds
 * nothing: this server has no bots with owners yet.
 */
export const getStreamsHandler =
  (deps: Deps<"channels" | "subscriptions" | "userGroups">): Handler<typeof messaging.getStreams> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [channels, subscribed, groups] = await Promise.all([
      deps.channels.all(realm.id),
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
      deps.userGroups.get(ctx),
    ]);
    const wanted = (ch: (typeof channels)[number]): boolean => {
      const isSubscribed = subscribed.has(ch.streamId);
      if (p.include_all || p.include_all_active) return canSeeMetadata(actor, ch, isSubscribed, groups);
      if (p.include_can_access_content) return canReadContent(actor, ch, isSubscribed, groups);
      return (
        (p.include_subscribed && isSubscribed) ||
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
