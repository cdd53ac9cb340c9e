// Events messaging publishes.
import { z } from "zod";
import { channelSchema } from "../contracts/messaging/channels";
import { messageSchema } from "../contracts/messaging/messages";
import { subscriptionSchema } from "../contracts/messaging/subscriptions";
import { audienceSchema, clientEventPayload, defineEvent } from "./define";

const int = z.number().int();

/**
 * A new message for its recipients. notifications shapes it per queue as GET
 * /messages would answer that client (rendered HTML here; `markdown` for
 * clients that registered with apply_markdown=false; each user's flags).
 */
export const messageSent = defineEvent(
  "messaging",
  "message",
  z.object({
    realmId: int,
    userIds: audienceSchema,
    message: messageSchema,
    /** the Markdown source */
    markdown: z.string(),
    /** each recipient's flags, by user id */
    flags: z.record(z.string(), z.array(z.string())),
  }),
);

export const streamCreated = defineEvent(
  "messaging",
  "stream",
  clientEventPayload(z.object({ type: z.literal("stream"), op: z.literal("create"), streams: z.array(channelSchema) })),
);

export const subscriptionChanged = defineEvent(
  "messaging",
  "subscription",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("subscription"), op: z.literal("add"), subscriptions: z.array(subscriptionSchema) }),
      z.object({
        type: z.literal("subscription"),
        op: z.literal("peer_add"),
        stream_ids: z.array(int),
        user_ids: z.array(int),
      }),
    ]),
  ),
);

/**
 * Channels changed (created, or their properties): every messaging instance
 * forgets its copy of the organization's channels (ChannelDirectory).
 */
export const channelsChanged = defineEvent("messaging", "channels_changed", z.object({ realmId: int }));

/**
 * Subscriptions changed for these users and channels: every messaging instance
 * forgets its copies of those users' subscriptions and those channels'
 * subscribers (SubscriptionDirectory).
 */
export const subscriptionsChanged = defineEvent(
  "messaging",
  "subscriptions_changed",
  z.object({ realmId: int, userIds: z.array(int), streamIds: z.array(int) }),
);
