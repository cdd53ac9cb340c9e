import { badRequest, requireUser, type Handler, type messaging, type UserGroupMemberships } from "@teamchat/shared";
import { canSeeMetadata } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";

/**
 * GET /users/{user_id}/channels (Zulip's get_user_channels): an active user
 * or bot's subscriptions, limited to the channels whose metadata the caller
 * may see (all of them for administrators), ascending.
 */
export const getUserChannelsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getUserChannels> =>
  async ({ user_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const user = (await deps.users.byIds(ctx, realm.id, [user_id])).get(user_id);
    if (!user?.is_active) throw badRequest("No such user");
    const [theirs, mine, groups] = await Promise.all([
      deps.subscriptions.subscribedStreamIds(realm.id, user_id),
      deps.subscriptions.subscribedStreamIds(realm.id, actor.userId),
      deps.userGroups.get(ctx),
    ]);
    const channels = await deps.channels.byIds(realm.id, [...theirs]);
    const visible = channels.filter((ch) => !ch.isArchived && canSeeMetadata(actor, ch, mine.has(ch.streamId), groups));
    return { subscribed_channel_ids: visible.map((ch) => ch.streamId).sort((a, b) => a - b) };
  };
