import { messaging, provideState, requireUser, type StateProvider, type UserGroupMemberships } from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "./subscription-directory";
import { subscriptionObjects } from "./subscription-objects";

/** register's subscriptions, unsubscribed and never_subscribed (subscribers unless include_subscribers is false). */
export const subscriptionsState = (deps: {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
}): StateProvider[] => [
  provideState(messaging.subscriptionsState, async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return subscriptionObjects(
      deps,
      ctx,
      realm.id,
      actor,
      p.include_subscribers !== false,
      p.client_capabilities.archived_channels === true,
    );
  }),
];
