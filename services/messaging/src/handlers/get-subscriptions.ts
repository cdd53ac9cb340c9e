import { messaging, requireUser, type Handler } from "@teamchat/shared";
import type { Deps } from "../deps";
import { subscriptionObjects } from "../subscriptions/subscription-objects";

/** GET /users/me/subscriptions */
export const getSubscriptionsHandler =
  (deps: Deps<"channels" | "subscriptions" | "userGroups">): Handler<typeof messaging.getSubscriptions> =>
  async ({ include_subscribers }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { subscriptions } = await subscriptionObjects(deps, ctx, realm.id, actor, include_subscribers !== false);
    return { subscriptions };
  };
