import { messaging, requireUser, type Handler } from "@teamchat/shared";
import type { Messaging } from "../context";
import { subscriptionObjects } from "../subscriptions/subscription-objects";

/** GET /users/me/subscriptions */
export const getSubscriptionsHandler =
  (m: Messaging): Handler<typeof messaging.getSubscriptions> =>
  async ({ include_subscribers }, ctx) => {
    const { actor } = requireUser(ctx);
    const { subscriptions } = await subscriptionObjects(m, actor, include_subscribers !== false);
    return { subscriptions };
  };
