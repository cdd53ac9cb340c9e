import { z } from "zod";
import { defineContract } from "../../contract";
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

export const subscribe = defineContract({
  subject: "messaging.subscriptions.add",
  http: { method: "POST", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({
    subscriptions: z.array(z.object({ name: z.string(), description: z.string().optional() })),
    principals: z.union([z.array(z.string()), intList]).optional(),
    authorization_errors_fatal: z.boolean().default(true),
    ...channelCreationParams,
  }),
  reply: z.object({
    subscribed: z.record(z.string(), z.array(z.string())),
    already_subscribed: z.record(z.string(), z.array(z.string())),
    unauthorized: z.array(z.string()).optional(),
  }),
});

/** GET /users/{user_id}/subscriptions/{stream_id}: whether the user is subscribed to the channel. */
export const getSubscriptionStatus = defineContract({
  subject: "messaging.subscriptions.status",
  http: { method: "GET", path: "/users/{user_id}/subscriptions/{stream_id}", auth: "user" },
  params: z.object({ user_id: z.number().int(), stream_id: z.number().int() }),
  reply: z.object({ is_subscribed: z.boolean() }),
});
