import { messaging, requireUser, type Handler, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { subscriptionObjects } from "../subscriptions/subscription-objects";

/** GET /users/me/subscriptions */
export const getSubscriptionsHandler =
  (deps: {
    channels: ChannelDirectory;
    subscriptions: SubscriptionDirectory;
    userGroups: UserGroupMemberships;
  }): Handler<typeof messaging.getSubscriptions> =>
  async ({ include_subscribers }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { subscriptions } = await subscriptionObjects(deps, ctx, realm.id, actor, include_subscribers !== false);
    return { subscriptions };
  };
