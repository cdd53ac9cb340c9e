import { messaging, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { subscriptionObjects } from "./subscription-objects";

/** register's subscriptions, unsubscribed and never_subscribed (subscribers unless include_subscribers is false). */
export const subscriptionsState = (deps: Deps<"channels" | "subscriptions" | "userGroups">): StateProvider[] => [
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
