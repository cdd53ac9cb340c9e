import { messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { UserDirectory } from "../users/user-directory";

/**
 * GET /streams/{stream_id}/members (Zulip's get_subscribers_backend): metadata
 * access is enough (organization administrators see a private channel's
 * subscribers without being one); deactivated users are not listed.
 */
export const getSubscribersHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    users: UserDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getSubscribers> =>
  async ({ stream_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    await accessChannelById(deps, realm.id, actor, stream_id, ctx, "metadata");
    const ids = await deps.subscriptions.subscriberIds(realm.id, stream_id);
    const users = await deps.users.byIds(ctx, realm.id, ids);
    return { subscribers: ids.filter((id) => users.get(id)?.is_active) };
  };
