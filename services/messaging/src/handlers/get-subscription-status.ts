import { badRequest, messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";

/**
 * GET /users/{user_id}/subscriptions/{stream_id} (Zulip's
 * get_subscription_backend): the user must be an active human
 * (access_user_by_id's defaults) and the channel one the asker may see
 * (organization administrators see private ones too).
 */
export const getSubscriptionStatusHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getSubscriptionStatus> =>
  async ({ user_id, stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const user = (await deps.users.byIds(ctx, realm.id, [user_id])).get(user_id);
    if (!user?.is_active || user.is_bot) throw badRequest("No such user");
    await accessChannelById(deps, realm.id, actor, stream_id, ctx, "metadata");
    return { is_subscribed: await deps.subscriptions.isSubscribed(realm.id, user_id, stream_id) };
  };
