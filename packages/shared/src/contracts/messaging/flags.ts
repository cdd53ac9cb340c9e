import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int, intList } from "../common";
import { narrowTermSchema } from "./messages";

/**
 * The personal flags a mention sets: personal (and group), channel-wildcard,
 * topic-wildcard and the legacy wildcard flag. is:mentioned matches any of
 * them, in GET /messages and in event queues alike.
 */
export const MENTION_FLAGS: readonly string[] = [
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "wildcard_mentioned",
];

/** POST /messages/flags: add or remove one of the user's flags on messages. */
export const updateMessageFlags = defineContract({
  subject: "messaging.flags.update",
  // adding or removing a flag twice leaves the same flags: safe for the gateway to ask again after a 503
  http: { method: "POST", path: "/messages/flags", auth: "user", retrySafe: () => true },
  // op and flag as strings: Zulip's own errors name an unknown one
  params: z.object({ messages: intList, op: z.string(), flag: z.string() }),
  reply: z.object({
    /** the ids the request named */
    messages: intList,
    /** marking unread: the channels whose messages were skipped, as the user is not subscribed */
    ignored_because_not_subscribed_channels: intList.optional(),
  }),
});

/** POST /mark_all_as_read: every unread message of the user, in batches within a time budget. */
export const markAllAsRead = defineContract({
  subject: "messaging.flags.mark_all_read",
  http: { method: "POST", path: "/mark_all_as_read", auth: "user" },
  params: z.object({}),
  reply: z.object({ complete: z.boolean() }),
});

/** POST /mark_stream_as_read: the user's unread messages in one channel. */
export const markStreamAsRead = defineContract({
  subject: "messaging.flags.mark_channel_read",
  http: { method: "POST", path: "/mark_stream_as_read", auth: "user" },
  params: z.object({ stream_id: int }),
  reply: emptyReply,
});

/** POST /mark_topic_as_read: the user's unread messages in one topic of a channel. */
export const markTopicAsRead = defineContract({
  subject: "messaging.flags.mark_topic_read",
  http: { method: "POST", path: "/mark_topic_as_read", auth: "user" },
  params: z.object({ stream_id: int, topic_name: z.string() }),
  reply: emptyReply,
});

/** POST /messages/flags/narrow: a flag added or removed over a range of a narrow, as GET /messages would pick it. */
export const updateMessageFlagsForNarrow = defineContract({
  subject: "messaging.flags.update_narrow",
  http: { method: "POST", path: "/messages/flags/narrow", auth: "user" },
  params: z.object({
    anchor: z.union([z.string(), int]).optional(),
    include_anchor: z.boolean().default(true),
    num_before: int.min(0),
    num_after: int.min(0),
    narrow: z.array(narrowTermSchema).default([]),
    op: z.string(),
    flag: z.string(),
  }),
  reply: z.object({
    processed_count: int,
    updated_count: int,
    first_processed_id: int.nullable(),
    last_processed_id: int.nullable(),
    found_oldest: z.boolean(),
    found_newest: z.boolean(),
    ignored_because_not_subscribed_channels: intList.optional(),
  }),
});

/** GET /messages/{message_id}/read_receipts: who has read a message. */
export const getReadReceipts = defineContract({
  subject: "messaging.flags.read_receipts",
  http: { method: "GET", path: "/messages/{message_id}/read_receipts", auth: "user" },
  params: z.object({ message_id: int.min(0) }),
  reply: z.object({ user_ids: intList }),
});
