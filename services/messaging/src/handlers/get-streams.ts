import { isAdmin, isGuest, messaging, requireUser, type Handler } from "@teamchat/shared";
import { channelView } from "../channels/channel-view";
import type { Deps } from "../deps";

/** GET /streams: the channels the user asks for among those they may see, by name. */
export const getStreamsHandler =
  (deps: Deps<"channels" | "subscriptions">): Handler<typeof messaging.getStreams> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [channels, subscribed] = await Promise.all([
      deps.channels.all(realm.id),
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
    ]);
    const all = (p.include_all || p.include_all_active) && isAdmin(actor);
    const streams = channels
      .filter((ch) => !(p.exclude_archived && ch.isArchived))
      .filter(
        (ch) =>
          all ||
          (p.include_public && !ch.inviteOnly && !isGuest(actor)) ||
          (p.include_subscribed && subscribed.has(ch.streamId)) ||
          (p.include_web_public && ch.isWebPublic) ||
          (p.include_default && ch.isDefault),
      )
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((ch) => ({ ...channelView(ch), ...(p.include_default ? { is_default: ch.isDefault } : {}) }));
    return { streams };
  };
