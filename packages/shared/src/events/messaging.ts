// Events messaging publishes.
import { z } from "zod";
import { realmRefSchema } from "../actor";
import { groupSettingValueSchema } from "../contracts/common";
import { channelSchema } from "../contracts/messaging/channels";
import { PROPAGATE_MODES, messageSchema, reactionSchema } from "../contracts/messaging/messages";
import { draftSchema } from "../contracts/messaging/drafts";
import { mutedUserSchema } from "../contracts/messaging/muted-users";
import { savedSnippetSchema } from "../contracts/messaging/saved-snippets";
import { reminderSchema } from "../contracts/messaging/reminders";
import { scheduledMessageSchema } from "../contracts/messaging/scheduled-messages";
import { subscriptionSchema } from "../contracts/messaging/subscriptions";
import { attachmentSchema } from "../contracts/messaging/uploads";
import { mentionedUserGroupSchema } from "../contracts/notifications/missed-message";
import { submessageSchema } from "../contracts/messaging/submessages";
import { realmExportSchema } from "../contracts/messaging/realm-exports";
import { audienceSchema, clientEventPayload, defineEvent, type PayloadOf } from "./define";

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
    /**
     * the flags of each recipient who has any, by user id; a recipient left
     * out has none (a channel message lists only its sender and those it
     * marks: a mention, an alert word, read for a muted sender)
     */
    flags: z.record(z.string(), z.array(z.string())),
    /**
     * A channel message that mentions its whole channel (@**all**): every
     * recipient's flags hold stream_wildcard_mentioned and wildcard_mentioned,
     * which are derived from the message, not stored per recipient
     * (MessageDoc.streamWildcard)
     */
    streamWildcard: z.literal(true).optional(),
    /**
     * A channel message: the recipients whose settings may notify them of it
     * though it mentions nobody (the channel's or a followed topic's email or
     * push notifications: Zulip's stream_email_user_ids, stream_push_user_ids
     * and followed_topic_* sets, as get_recipient_info selects them). The
     * missed-message decision looks at these and at those the flags mention,
     * not at every subscriber. Absent (direct messages): every recipient.
     */
    notifiableUserIds: z.array(int).optional(),
    /** the recipients notified through a mentioned group, by user id: the group (Zulip's mentioned_user_groups_map) */
    mentionedUserGroups: z.record(z.string(), mentionedUserGroupSchema).optional(),
    /** Zulip's local echo: the sending client's queue gets `local_message_id` = localId */
    localEcho: z.object({ queueId: z.string(), localId: z.string() }).optional(),
    /** Zulip's disable_external_notifications: nobody is mailed or pushed it (Welcome Bot's messages) */
    disableExternalNotifications: z.boolean().optional(),
  }),
);

/**
 * Who received a sent message: its audience. The flags do not say it (a
 * channel message's list only those it marks); an audience of "all" lists
 * every receiver in them.
 */
export const receiversOf = ({ userIds, flags }: Pick<PayloadOf<typeof messageSent>, "userIds" | "flags">): number[] =>
  userIds === "all" ? Object.keys(flags).map(Number) : userIds;

/**
 * Zulip's embed_links queue: a message links web pages whose previews are not
 * fetched yet. One messaging instance (a durable consumer) fetches them and
 * renders the message again with their cards, if its content is still this.
 */
export const linkPreviewsWanted = defineEvent(
  "messaging",
  "link_previews_wanted",
  z.object({
    realm: realmRefSchema,
    messageId: int,
    senderId: int,
    /** the content the links were found in: an edit since makes the fetch moot (the edit asks again) */
    content: z.string(),
    urls: z.array(z.string()).min(1),
  }),
);

/**
 * Zulip's update_message event without the per-user `flags`: a message's
 * content edited, or messages moved to another topic or channel. Fields are
 * present as Zulip sends them: content fields for an edit, topic and channel
 * fields for a move.
 */
export const updateMessageEventSchema = z.object({
  type: z.literal("update_message"),
  user_id: int.nullable(),
  edit_timestamp: int,
  message_id: int,
  /** every message the move applies to, `message_id` included */
  message_ids: z.array(int),
  rendering_only: z.boolean(),
  /** a channel message: its channel before the edit */
  stream_name: z.string().optional(),
  stream_id: int.optional(),
  new_stream_id: int.optional(),
  propagate_mode: z.enum(PROPAGATE_MODES).optional(),
  orig_subject: z.string().optional(),
  subject: z.string().optional(),
  topic_links: z.array(z.object({ text: z.string(), url: z.string() })).optional(),
  orig_content: z.string().optional(),
  orig_rendered_content: z.string().optional(),
  content: z.string().optional(),
  rendered_content: z.string().optional(),
  is_me_message: z.boolean().optional(),
});

/**
 * Messages edited or moved. notifications gives each queue Zulip's
 * update_message event with the user's flags; every messaging instance drops
 * or corrects its copies of the messages (MessageCache, RecentMessages,
 * PersonalIndex).
 */
export const messageUpdated = defineEvent(
  "messaging",
  "update_message",
  z.object({
    realmId: int,
    userIds: z.array(int),
    event: updateMessageEventSchema,
    /** each user's flags for `message_id` after the edit, by user id (["read"] for those without a row) */
    flags: z.record(z.string(), z.array(z.string())),
    /**
     * A content edit: the message as edited, as messageSent carries it, and
     * who was mentioned before the edit (Zulip's prior_mention_user_ids), so
     * that those it newly mentions are notified
     */
    contentEdit: z
      .object({
        message: messageSchema,
        markdown: z.string(),
        priorMentionUserIds: z.array(int),
        /** the edited message mentions its whole channel, as messageSent's `streamWildcard` says */
        streamWildcard: z.literal(true).optional(),
      })
      .optional(),
  }),
);

/**
 * Messages deleted, or no longer visible to these users (moved to a channel
 * they cannot read): Zulip's delete_message event; notifications splits it per
 * message for clients without the bulk_message_deletion capability.
 */
export const messagesDeleted = defineEvent(
  "messaging",
  "delete_message",
  clientEventPayload(
    z.object({
      type: z.literal("delete_message"),
      message_ids: z.array(int).optional(),
      /** clients without bulk_message_deletion: one event per message */
      message_id: int.optional(),
      message_type: z.enum(["private", "stream"]),
      stream_id: int.optional(),
      topic: z.string().optional(),
    }),
  ),
);

/**
 * Channels created, or newly visible to these users. `for_unarchiving` (Zulip's
 * send_stream_creation_event flag, never shown to clients): an unarchived
 * channel, which only clients without the archived_channels capability get
 * this way (the others get stream update is_archived).
 */
export const streamCreated = defineEvent(
  "messaging",
  "stream",
  clientEventPayload(
    z.object({
      type: z.literal("stream"),
      op: z.literal("create"),
      streams: z.array(channelSchema),
      for_unarchiving: z.literal(true).optional(),
    }),
  ),
);

export const subscriptionChanged = defineEvent(
  "messaging",
  "subscription",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.object({ type: z.literal("subscription"), op: z.literal("add"), subscriptions: z.array(subscriptionSchema) }),
      /** to the user unsubscribed */
      z.object({
        type: z.literal("subscription"),
        op: z.literal("remove"),
        subscriptions: z.array(z.object({ name: z.string(), stream_id: int })),
      }),
      /** a personal property of the user's subscription (one event per property) */
      z.object({
        type: z.literal("subscription"),
        op: z.literal("update"),
        stream_id: int,
        property: z.string(),
        value: z.union([int, z.boolean(), z.string()]),
      }),
      /** to those who may see the channel's subscribers, other than the users added or removed */
      z.object({
        type: z.literal("subscription"),
        op: z.enum(["peer_add", "peer_remove"]),
        stream_ids: z.array(int),
        user_ids: z.array(int),
      }),
    ]),
  ),
);

/**
 * A channel property changed (Zulip's stream op:update), one event per
 * property: first_message_id after deletions and moves, and each property
 * PATCH /streams/{stream_id} changes. `name` is the name before the change.
 * Archiving and unarchiving are told as property is_archived to clients with
 * the archived_channels capability only; notifications turns an archiving into
 * op:delete for the others (and gives them streamCreated's for_unarchiving).
 */
export const streamUpdated = defineEvent(
  "messaging",
  "stream_update",
  clientEventPayload(
    z.object({
      type: z.literal("stream"),
      op: z.literal("update"),
      stream_id: int,
      name: z.string(),
      property: z.string(),
      /** null: message_retention_days back to the organization's default, folder_id out of its folder */
      value: z.union([z.string(), int, z.boolean(), groupSettingValueSchema, z.null()]),
      /** with description */
      rendered_description: z.string().optional(),
      /** with invite_only */
      history_public_to_subscribers: z.boolean().optional(),
      is_web_public: z.boolean().optional(),
    }),
  ),
);

/**
 * Users no longer see these channels (Zulip's stream op:delete): those who
 * lost metadata access, and, for archiving, clients without the
 * archived_channels capability (notifications makes it from streamUpdated).
 */
export const streamDeleted = defineEvent(
  "messaging",
  "stream_delete",
  clientEventPayload(
    z.object({
      type: z.literal("stream"),
      op: z.literal("delete"),
      /** deprecated by Zulip (FL 343) for stream_ids */
      streams: z.array(z.object({ stream_id: int })),
      stream_ids: z.array(int),
    }),
  ),
);

/** The organization's default channels changed: Zulip's default_streams event, every id. */
export const defaultStreamsChanged = defineEvent(
  "messaging",
  "default_streams",
  clientEventPayload(z.object({ type: z.literal("default_streams"), default_streams: z.array(int) })),
);

/**
 * Channels changed (created, or their properties): every messaging instance
 * forgets its copy of the organization's channels (ChannelDirectory).
 */
export const channelsChanged = defineEvent("messaging", "channels_changed", z.object({ realmId: int }));

/**
 * Not a client event: what other services keep of channels (EventFedCopy):
 * each channel's given facts, all of them for a new channel, the changed ones
 * after an update. With `asOf`, every channel of the organization as
 * messaging's database held them once the domain events' stream had reached
 * that sequence: the backfill of copies made after the channels were.
 */
export const channelFacts = defineEvent(
  "messaging",
  "channel_facts",
  z.object({
    realmId: int,
    channels: z.array(
      z.object({
        stream_id: int,
        invite_only: z.boolean().optional(),
        is_archived: z.boolean().optional(),
        is_web_public: z.boolean().optional(),
        /** one of the organization's default channels */
        is_default: z.boolean().optional(),
        /** group settings by name */
        groups: z.record(z.string(), groupSettingValueSchema).optional(),
      }),
    ),
    asOf: int.optional(),
  }),
);

/**
 * Not a client event: which users are subscribed to which channels, for the
 * copies other services keep (identity checks invitations' channels with
 * it): the pairs now subscribed, or no longer. With `asOf`, every active
 * subscription of the organization as messaging's database held them once
 * the domain events' stream had reached that sequence (the backfill).
 */
export const subscriptionFacts = defineEvent(
  "messaging",
  "subscription_facts",
  z.object({
    realmId: int,
    subscribed: z.boolean(),
    pairs: z.array(z.object({ user_id: int, stream_id: int })),
    asOf: int.optional(),
  }),
);

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

/** What a client needs to count a message unread again (Zulip's MessageDetailsDict). */
const unreadMessageDetailsSchema = z.object({
  type: z.enum(["private", "stream"]),
  /** only when the message mentions the user */
  mentioned: z.literal(true).optional(),
  /** a direct message's other participants */
  user_ids: z.array(int).optional(),
  stream_id: int.optional(),
  topic: z.string().optional(),
  unmuted_stream_msg: z.boolean().optional(),
});
export type UnreadMessageDetails = z.infer<typeof unreadMessageDetailsSchema>;

const updateMessageFlagsEventSchema = z.object({
  type: z.literal("update_message_flags"),
  op: z.enum(["add", "remove"]),
  /** Zulip's old name for op */
  operation: z.enum(["add", "remove"]),
  flag: z.string(),
  messages: z.array(int),
  /** the read flag added to every message (mark all as read): messages is empty */
  all: z.boolean(),
  /** marking unread: each message's details, by id */
  message_details: z.record(z.string(), unreadMessageDetailsSchema).optional(),
});

/**
 * A user's flags changed on some messages: their queues get it as Zulip's
 * update_message_flags event, and every messaging instance applies it to its
 * copy of the user's personal state (PersonalIndex).
 */
export const messageFlagsUpdated = defineEvent(
  "messaging",
  "update_message_flags",
  clientEventPayload(updateMessageFlagsEventSchema).extend({
    /**
     * The user's read state in each channel the change stored, by channel id,
     * with the version it was stored at: every messaging instance's copy takes
     * it as stored (PersonalIndex)
     */
    readStates: z
      .record(
        z.string(),
        z.object({
          watermark: int,
          exceptions: z.array(int),
          intervals: z.array(z.number().int()),
          version: int.optional(),
        }),
      )
      .optional(),
    /**
     * Marking unread: the channel messages among `messages` that mention their
     * whole channel (MessageDoc.streamWildcard), which PersonalIndex remembers
     * of those older than their channel's messages it holds
     */
    streamWildcardIds: z.array(int).optional(),
  }),
);

/** Zulip's reaction event (notify_reaction_update). */
const reactionEventSchema = reactionSchema.extend({
  type: z.literal("reaction"),
  op: z.enum(["add", "remove"]),
  message_id: int,
  /** deprecated by Zulip for user_id, re-added at feature level 339 as the mobile app still reads it */
  user: z.object({ user_id: int, email: z.string(), full_name: z.string() }),
});

/**
 * A reaction added to or removed from a message: the queues of those who may
 * see the message get Zulip's reaction event, and every messaging instance
 * applies it to its copies of the message (MessageCache, RecentMessages).
 */
export const reactionChanged = defineEvent(
  "messaging",
  "reaction",
  clientEventPayload(reactionEventSchema).extend({
    /** the message's channel (null for a direct message): which channel's recent messages hold it */
    streamId: int.nullable(),
  }),
);

/**
 * A submessage attached to a message (Zulip's do_add_submessage): the queues of
 * the message's recipients get Zulip's submessage event, and every messaging
 * instance adds it to its copies of the message (MessageCache, RecentMessages).
 */
export const submessageAdded = defineEvent(
  "messaging",
  "submessage",
  clientEventPayload(
    submessageSchema.omit({ id: true }).extend({ type: z.literal("submessage"), submessage_id: int }),
  ).extend({
    /** the message's channel (null for a direct message): which channel's recent messages hold it */
    streamId: int.nullable(),
  }),
);

/**
 * A user's visibility policy for a topic changed (Zulip's
 * do_set_user_topic_visibility_policy): their queues get Zulip's user_topic
 * event (visibility_policy 0 when the policy was removed), and every messaging
 * instance applies it to its copy of the user's topics (UserTopicIndex).
 */
export const userTopicChanged = defineEvent(
  "messaging",
  "user_topic",
  clientEventPayload(
    z.object({
      type: z.literal("user_topic"),
      stream_id: int,
      topic_name: z.string(),
      last_updated: int,
      visibility_policy: int,
    }),
  ),
);

/**
 * Zulip's deprecated muted_topics event, sent before user_topic with all the
 * user's muted topics ([channel name, topic, muted at]); queues that asked for
 * user_topic as well do not get it.
 */
export const mutedTopicsChanged = defineEvent(
  "messaging",
  "muted_topics",
  clientEventPayload(
    z.object({ type: z.literal("muted_topics"), muted_topics: z.array(z.tuple([z.string(), z.string(), int])) }),
  ),
);

/**
 * A user's alert words changed: their queues get Zulip's alert_words event
 * (all their words), and every messaging instance replaces its copy of the
 * user's words (AlertWordIndex).
 */
export const alertWordsChanged = defineEvent(
  "messaging",
  "alert_words",
  clientEventPayload(z.object({ type: z.literal("alert_words"), alert_words: z.array(z.string()) })),
);

/**
 * A user muted or unmuted someone: their queues get Zulip's muted_users event
 * (everyone they mute now), and every messaging instance replaces its copy
 * (MutedUserIndex).
 */
export const mutedUsersChanged = defineEvent(
  "messaging",
  "muted_users",
  clientEventPayload(z.object({ type: z.literal("muted_users"), muted_users: z.array(mutedUserSchema) })),
);

/** A user's drafts changed (Zulip's do_create_drafts, do_edit_draft, do_delete_draft): to that user. */
export const draftsChanged = defineEvent(
  "messaging",
  "drafts",
  clientEventPayload(
    z.union([
      z.object({ type: z.literal("drafts"), op: z.literal("add"), drafts: z.array(draftSchema) }),
      z.object({ type: z.literal("drafts"), op: z.literal("update"), draft: draftSchema }),
      z.object({ type: z.literal("drafts"), op: z.literal("remove"), draft_id: int }),
    ]),
  ),
);

/** A user's saved snippets changed (Zulip's actions/saved_snippets.py): to that user. */
export const savedSnippetsChanged = defineEvent(
  "messaging",
  "saved_snippets",
  clientEventPayload(
    z.union([
      z.object({ type: z.literal("saved_snippets"), op: z.literal("add"), saved_snippet: savedSnippetSchema }),
      z.object({ type: z.literal("saved_snippets"), op: z.literal("update"), saved_snippet: savedSnippetSchema }),
      z.object({ type: z.literal("saved_snippets"), op: z.literal("remove"), saved_snippet_id: int }),
    ]),
  ),
);

/**
 * A user's scheduled messages changed (Zulip's actions/scheduled_messages.py):
 * to that user; delivery removes the message from the list.
 */
export const scheduledMessagesChanged = defineEvent(
  "messaging",
  "scheduled_messages",
  clientEventPayload(
    z.union([
      z.object({
        type: z.literal("scheduled_messages"),
        op: z.literal("add"),
        scheduled_messages: z.array(scheduledMessageSchema),
      }),
      z.object({
        type: z.literal("scheduled_messages"),
        op: z.literal("update"),
        scheduled_message: scheduledMessageSchema,
      }),
      z.object({ type: z.literal("scheduled_messages"), op: z.literal("remove"), scheduled_message_id: int }),
    ]),
  ),
);

/** A user's reminders changed (Zulip's actions/reminders.py, FL 399): to that user; delivery removes the reminder. */
export const remindersChanged = defineEvent(
  "messaging",
  "reminders",
  clientEventPayload(
    z.union([
      z.object({ type: z.literal("reminders"), op: z.literal("add"), reminders: z.array(reminderSchema) }),
      z.object({ type: z.literal("reminders"), op: z.literal("remove"), reminder_id: int }),
    ]),
  ),
);

/**
 * Not a client event: a user's reminders, scheduled messages or drafts changed
 * where Zulip sends the user's clients no event (a failed reminder, a
 * deactivated sender's failed scheduled message, drafts deleted as their
 * synchronization stopped): every messaging instance drops its copy of the
 * user's lists that register reads.
 */
export const userListsChanged = defineEvent(
  "messaging",
  "user_lists_changed",
  z.object({ realmId: int, userIds: z.array(int) }),
);

/**
 * One of a user's uploads was added, linked by a message (update) or deleted,
 * for the uploader's queues (Zulip's notify_attachment_update), with the
 * organization's total upload size.
 */
export const attachmentChanged = defineEvent(
  "messaging",
  "attachment",
  clientEventPayload(
    z.discriminatedUnion("op", [
      z.strictObject({
        type: z.literal("attachment"),
        op: z.enum(["add", "update"]),
        attachment: attachmentSchema,
        upload_space_used: int,
      }),
      z.strictObject({
        type: z.literal("attachment"),
        op: z.literal("remove"),
        attachment: z.strictObject({ id: int }),
        upload_space_used: int,
      }),
    ]),
  ),
);

/** The organization's data exports changed (requested, finished, failed, deleted): Zulip's notify_realm_export, to human administrators. */
export const realmExportChanged = defineEvent(
  "messaging",
  "realm_export",
  clientEventPayload(z.strictObject({ type: z.literal("realm_export"), exports: z.array(realmExportSchema) })),
);
