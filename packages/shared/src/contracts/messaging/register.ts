import { z } from "zod";
import { int, intList } from "../common";
import { registerStateContract, statePart } from "../register";
import { channelSchema } from "./channels";
import { draftSchema } from "./drafts";
import { mutedUserSchema } from "./muted-users";
import { savedSnippetSchema } from "./saved-snippets";
import { reminderSchema } from "./reminders";
import { scheduledMessageSchema } from "./scheduled-messages";
import { neverSubscribedSchema, subscriptionSchema } from "./subscriptions";

/** messaging's parts of POST /register (Zulip's fetch_initial_state_data), by the event types that keep them current. */

export const maxMessageIdState = statePart(["message"], z.object({ max_message_id: int }));

export const subscriptionsState = statePart(
  ["subscription"],
  z.object({
    subscriptions: z.array(subscriptionSchema),
    unsubscribed: z.array(subscriptionSchema),
    never_subscribed: z.array(neverSubscribedSchema),
  }),
);

export const streamsState = statePart(["stream"], z.object({ streams: z.array(channelSchema) }));

export const defaultStreamsState = statePart(["default_streams"], z.object({ realm_default_streams: intList }));

/** Zulip's DefaultChannelGroup. */
export const defaultStreamGroupSchema = z.object({
  name: z.string(),
  description: z.string(),
  id: int,
  streams: intList,
});

export const defaultStreamGroupsState = statePart(
  ["default_stream_groups"],
  z.object({ realm_default_stream_groups: z.array(defaultStreamGroupSchema) }),
);

export const starredMessagesState = statePart(["starred_messages"], z.object({ starred_messages: intList }));

/**
 * Zulip's deprecated muted_topics: [channel name, topic, muted at (UNIX time)];
 * absent when fetch_event_types asks for user_topic as well.
 */
export const mutedTopicsState = statePart(
  ["muted_topics"],
  z.object({ muted_topics: z.array(z.tuple([z.string(), z.string(), int])).optional() }),
);

export const userTopicSchema = z.object({
  stream_id: int,
  topic_name: z.string(),
  last_updated: int,
  /** 1 muted, 2 unmuted, 3 followed */
  visibility_policy: int,
});

export const userTopicsState = statePart(["user_topic"], z.object({ user_topics: z.array(userTopicSchema) }));

export const recentPrivateConversationsState = statePart(
  ["recent_private_conversations"],
  z.object({ recent_private_conversations: z.array(z.object({ max_message_id: int, user_ids: intList })) }),
);

/** Zulip's unread_msgs: the unread message ids grouped by conversation, and the unread mentions. */
export const unreadMsgsSchema = z.object({
  pms: z.array(z.object({ other_user_id: int, sender_id: int, unread_message_ids: intList })),
  streams: z.array(z.object({ stream_id: int, topic: z.string(), unread_message_ids: intList })),
  huddles: z.array(z.object({ user_ids_string: z.string(), unread_message_ids: intList })),
  mentions: intList,
  count: int,
  old_unreads_missing: z.boolean(),
});
export type UnreadMsgs = z.infer<typeof unreadMsgsSchema>;

/** Kept current by message events (new unreads) and update_message_flags (read ones): needs both. */
export const unreadMsgsState = statePart(
  ["message", "update_message_flags"],
  z.object({ unread_msgs: unreadMsgsSchema }),
);

/** The caller's alert words (Zulip's user_alert_words). */
export const alertWordsState = statePart(["alert_words"], z.object({ alert_words: z.array(z.string()) }));

/** The users the caller muted, oldest first. */
export const mutedUsersState = statePart(["muted_users"], z.object({ muted_users: z.array(mutedUserSchema) }));

/**
 * What the caller may do with channels and invitations, from the organization's
 * group settings (Zulip's fetch_initial_state_data, realm_user group). Clients
 * recompute them from the realm and realm_user events that change their inputs.
 */
export const channelPermissionsState = statePart(
  ["realm_user"],
  z.object({
    can_create_streams: z.boolean(),
    can_create_public_streams: z.boolean(),
    can_create_private_streams: z.boolean(),
    can_create_web_public_streams: z.boolean(),
    can_subscribe_other_users: z.boolean(),
    can_invite_others_to_realm: z.boolean(),
  }),
);

/** The words full-text search ignores (Zulip's read_stop_words): none, search here matches every word. */
export const stopWordsState = statePart(["stop_words"], z.object({ stop_words: z.array(z.string()) }));

/**
 * The caller's drafts, most recently edited first (at most MAX_DRAFTS_IN_REGISTER);
 * empty while their enable_drafts_synchronization is off (turning it off deletes them).
 */
export const draftsState = statePart(["drafts"], z.object({ drafts: z.array(draftSchema) }));

/** The caller's undelivered scheduled messages, soonest first. */
export const scheduledMessagesState = statePart(
  ["scheduled_messages"],
  z.object({ scheduled_messages: z.array(scheduledMessageSchema) }),
);

/** The caller's undelivered reminders, soonest first (Zulip's get_undelivered_reminders, FL 399). */
export const remindersState = statePart(["reminders"], z.object({ reminders: z.array(reminderSchema) }));

/** The caller's saved snippets, oldest first. */
export const savedSnippetsState = statePart(
  ["saved_snippets"],
  z.object({ saved_snippets: z.array(savedSnippetSchema) }),
);

export const registerState = registerStateContract("messaging", [
  maxMessageIdState,
  subscriptionsState,
  streamsState,
  defaultStreamsState,
  defaultStreamGroupsState,
  starredMessagesState,
  mutedTopicsState,
  userTopicsState,
  recentPrivateConversationsState,
  unreadMsgsState,
  alertWordsState,
  mutedUsersState,
  channelPermissionsState,
  stopWordsState,
  draftsState,
  scheduledMessagesState,
  remindersState,
  savedSnippetsState,
]);
