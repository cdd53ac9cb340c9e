import { z } from "zod";
import { defineContract } from "../../contract";
import { intList } from "../common";
import { channelCreationParams, looseObject } from "./channel-params";

export const getSubscriptions = defineContract({
  subject: "messaging.subscriptions.list",
  http: { method: "GET", path: "/users/me/subscriptions", auth: "user" },
  params: z.object({ include_subscribers: z.union([z.boolean(), z.literal("partial")]).default(false) }),
  reply: z.object({ subscriptions: z.array(looseObject) }),
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
