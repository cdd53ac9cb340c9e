import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { intList } from "../common";
import { channelCreationParams } from "./channel-params";
import { channelSchema } from "./channels";

/** Zulip's Subscription: the channel with the user's own settings (and its subscribers when asked). */
export const subscriptionSchema = channelSchema.extend({
  color: z.string(),
  is_muted: z.boolean(),
  /** the pre-FL-139 inverse of is_muted */
  in_home_view: z.boolean(),
  pin_to_top: z.boolean(),
  desktop_notifications: z.boolean().nullable(),
  email_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  audible_notifications: z.boolean().nullable(),
  subscribers: z.array(z.number().int()).optional(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** A channel the user is not subscribed to, as register's never_subscribed lists it. */
export const neverSubscribedSchema = channelSchema.extend({ subscribers: z.array(z.number().int()).optional() });
export type NeverSubscribed = z.infer<typeof neverSubscribedSchema>;

export const getSubscriptions = defineContract({
  subject: "messaging.subscriptions.list",
  http: { method: "GET", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({ include_subscribers: z.union([z.boolean(), z.literal("partial")]).default(false) }),
  reply: z.object({ subscriptions: z.array(subscriptionSchema) }),
});

/** A channel to subscribe to (created when missing): Zulip's AddSubscriptionData. */
const addSubscriptionSchema = z.object({
  name: z.string(),
  /** the subscriber's color for it (Zulip's color_map) */
  color: z.string().optional(),
  description: z.string().optional(),
});

/** User ids (preferred) or Zulip API addresses. */
const principalsSchema = z.union([z.array(z.string()), intList]);

const subscribedReply = {
  subscribed: z.record(z.string(), z.array(z.string())),
  already_subscribed: z.record(z.string(), z.array(z.string())),
};
const removedReply = { removed: z.array(z.string()), not_removed: z.array(z.string()) };

export const subscribe = defineContract({
  subject: "messaging.subscriptions.add",
  http: { method: "POST", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({
    subscriptions: z.array(addSubscriptionSchema),
    principals: principalsSchema.optional(),
    authorization_errors_fatal: z.boolean().default(true),
    /** whether Notification Bot tells the others subscribed that they were (FL 397) */
    send_new_subscription_messages: z.boolean().default(true),
    ...channelCreationParams,
  }),
  reply: z.object({
    ...subscribedReply,
    unauthorized: z.array(z.string()).optional(),
    /** present when send_new_subscription_messages was true: whether those messages were sent (FL 397) */
    new_subscription_messages_sent: z.boolean().optional(),
  }),
});

/** DELETE /users/me/subscriptions: unsubscribe oneself or `principals` (Zulip's remove_subscriptions_backend). */
export const unsubscribe = defineContract({
  subject: "messaging.subscriptions.remove",
  http: { method: "DELETE", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({ subscriptions: z.array(z.string()), principals: principalsSchema.optional() }),
  reply: z.object(removedReply),
});

/** PATCH /users/me/subscriptions: subscribe to `add` and unsubscribe from `delete` in one call. */
export const updateSubscriptions = defineContract({
  subject: "messaging.subscriptions.update",
  http: { method: "PATCH", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({ add: z.array(addSubscriptionSchema).optional(), delete: z.array(z.string()).optional() }),
  reply: z.object({ ...subscribedReply, ...removedReply }),
});

/**
 * The personal settings of a subscription that POST /users/me/subscriptions/properties
 * changes (is_muted also under its old inverted name in_home_view).
 */
export const SUBSCRIPTION_PROPERTIES = [
  "color",
  "is_muted",
  "in_home_view",
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

/** POST /users/me/subscriptions/properties; property and value are checked by the handler, with Zulip's messages. */
export const updateSubscriptionProperties = defineContract({
  subject: "messaging.subscriptions.properties",
  http: { method: "POST", path: "/users/me/subscriptions/properties", auth: "user" },
  params: z.object({
    subscription_data: z.array(
      z.object({ stream_id: z.number().int(), property: z.string(), value: z.union([z.boolean(), z.string()]) }),
    ),
  }),
  reply: emptyReply,
});

/** GET /users/{user_id}/subscriptions/{stream_id}: whether the user is subscribed to the channel. */
export const getSubscriptionStatus = defineContract({
  subject: "messaging.subscriptions.status",
  http: { method: "GET", path: "/users/{user_id}/subscriptions/{stream_id}", auth: "user" },
  params: z.object({ user_id: z.number().int(), stream_id: z.number().int() }),
  reply: z.object({ is_subscribed: z.boolean() }),
});
