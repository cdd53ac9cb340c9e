import { z } from "zod";
import { defineContract } from "../../contract";
import { LIMITS } from "../../domain/limits";
import { int, intList } from "../common";
import { submessageSchema } from "./submessages";

/** Zulip's Reaction on a message. */
export const reactionSchema = z.object({
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(["unicode_emoji", "realm_emoji", "zulip_extra_emoji"]),
  user_id: int,
});
export type Reaction = z.infer<typeof reactionSchema>;

/**
 * One edit of a message (Zulip's EditHistoryEvent): who and when, and the
 * aspects it changed, each as before and (for channel and topic) after.
 */
export const editHistoryEntrySchema = z.object({
  user_id: int.nullable(),
  timestamp: int,
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  prev_stream: int.optional(),
  stream: int.optional(),
  prev_topic: z.string().optional(),
  topic: z.string().optional(),
});
export type EditHistoryEntry = z.infer<typeof editHistoryEntrySchema>;

const messageFields = {
  id: int,
  sender_id: int,
  sender_email: z.string(),
  sender_full_name: z.string(),
  /** the organization's subdomain ("" for the root organization) */
  sender_realm_str: z.string(),
  /** null for client_gravatar clients when the URL is Gravatar's, which they compute themselves */
  avatar_url: z.string().nullable(),
  client: z.string(),
  content: z.string(),
  content_type: z.enum(["text/html", "text/x-markdown"]),
  is_me_message: z.boolean(),
  reactions: z.array(reactionSchema),
  recipient_id: int,
  submessages: z.array(submessageSchema),
  timestamp: int,
  topic_links: z.array(z.object({ text: z.string(), url: z.string() })),
  /** edited or moved messages, when the organization shows edit history: most recent edit first */
  edit_history: z.array(editHistoryEntrySchema).optional(),
  /** the last content edit; absent if never edited */
  last_edit_timestamp: int.optional(),
  /** the last move to another channel or topic (resolving a topic is not one); absent if never moved */
  last_moved_timestamp: int.optional(),
};

export const channelMessageSchema = z.object({
  ...messageFields,
  type: z.literal("stream"),
  /** the channel's name */
  display_recipient: z.string(),
  stream_id: int,
  subject: z.string(),
});

export const directMessageSchema = z.object({
  ...messageFields,
  type: z.literal("private"),
  display_recipient: z.array(
    z.object({ id: int, email: z.string(), full_name: z.string(), is_mirror_dummy: z.boolean() }),
  ),
  subject: z.literal(""),
});

/** Zulip's message object (zulip.yaml MessagesBase), as message events carry it. */
export const messageSchema = z.discriminatedUnion("type", [channelMessageSchema, directMessageSchema]);
export type Message = z.infer<typeof messageSchema>;

/**
 * A message as GET /messages returns it: with the caller's flags, and for a
 * search, its content and topic with the matches marked.
 */
const fetchedFields = {
  flags: z.array(z.string()),
  match_content: z.string().optional(),
  match_subject: z.string().optional(),
};
export const fetchedMessageSchema = z.discriminatedUnion("type", [
  channelMessageSchema.extend(fetchedFields),
  directMessageSchema.extend(fetchedFields),
]);

/** GET /messages/{message_id}: one message the caller may see, with its Markdown source. */
export const getMessage = defineContract({
  subject: "messaging.messages.get",
  http: { method: "GET", path: "/messages/{message_id}", auth: "user" },
  params: z.object({
    message_id: int.min(0),
    apply_markdown: z.boolean().default(true),
    allow_empty_topic_name: z.boolean().default(false),
  }),
  reply: z.object({
    /** deprecated by Zulip in favour of apply_markdown=false, still sent */
    raw_content: z.string(),
    message: fetchedMessageSchema,
  }),
});

/** POST /messages/render: Markdown as a message would show it (previews). */
export const renderMessage = defineContract({
  subject: "messaging.messages.render",
  http: { method: "POST", path: "/messages/render", auth: "user" },
  params: z.object({ content: z.string().max(LIMITS.max_message_length) }),
  reply: z.object({ rendered: z.string() }),
});

/** Stripe's limit for the header: long enough for any UUID-based scheme. */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The key a send is recognized by on retry: its Idempotency-Key header, else
 * Zulip's local echo pair; none: a retry posts again.
 */
export function sendKey(p: { idempotency_key?: string; queue_id?: string; local_id?: string }): string | undefined {
  if (p.idempotency_key !== undefined) return `header:${p.idempotency_key}`;
  if (p.queue_id !== undefined && p.local_id !== undefined) return `local:${p.queue_id}:${p.local_id}`;
  return undefined;
}

/**
 * POST /messages. A retry is safe when the send has a key (sendKey): one the
 * sender made before answers the first send's id and posts nothing (see
 * messaging's SendReceiptRepository).
 */
export const sendMessage = defineContract({
  subject: "messaging.messages.send",
  http: {
    method: "POST",
    path: "/messages",
    auth: "user",
    headers: { "idempotency-key": "idempotency_key" },
    retrySafe: (params) => sendKey(params) !== undefined,
  },
  params: z.object({
    type: z.enum(["direct", "channel", "private", "stream"]),
    to: z.union([z.string(), int, z.array(z.union([int, z.string()]))]),
    content: z.string(),
    topic: z.string().optional(),
    subject: z.string().optional(),
    queue_id: z.string().optional(),
    local_id: z.string().optional(),
    read_by_sender: z.boolean().optional(),
    /** Zulip's undocumented parameter for bots' interactive widgets (a zform of choices), as JSON */
    widget_content: z.string().optional(),
    /** from the Idempotency-Key header */
    idempotency_key: z.string().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).optional(),
  }),
  reply: z.object({ id: int, automatic_new_visibility_policy: int.optional() }),
  // a send in flight at an instance that dies is answered 503 within ~3 s, not 504 at the bus
  // timeout (10 s), so the gateway's retry of a keyed send finishes it at another instance
  keepAlive: { everyMs: 1_000 },
});

/** A narrow term: Zulip's object form or the legacy [operator, operand] pair. */
export const narrowTermSchema = z.union([
  z.object({
    operator: z.string(),
    operand: z.union([z.string(), int, intList, z.array(z.string())]),
    negated: z.boolean().default(false),
  }),
  z.tuple([z.string(), z.union([z.string(), int, intList, z.array(z.string())])]),
]);

export const getMessages = defineContract({
  subject: "messaging.messages.list",
  http: { method: "GET", path: "/messages", auth: "user" },
  params: z.object({
    anchor: z.union([z.string(), int]).optional(),
    include_anchor: z.boolean().optional(),
    num_before: int.min(0).optional(),
    num_after: int.min(0).optional(),
    narrow: z.array(narrowTermSchema).default([]),
    client_gravatar: z.boolean().default(true),
    apply_markdown: z.boolean().default(true),
    message_ids: z.array(int.min(0)).optional(),
    allow_empty_topic_name: z.boolean().default(false),
    use_first_unread_anchor: z.boolean().optional(),
  }),
  reply: z.object({
    /** "newest" answers Zulip's LARGER_THAN_MAX_MESSAGE_ID (10^16), beyond the safe-integer range zod's int allows */
    anchor: z.number().optional(),
    found_anchor: z.boolean(),
    found_oldest: z.boolean(),
    found_newest: z.boolean(),
    history_limited: z.boolean(),
    messages: z.array(fetchedMessageSchema),
  }),
});

/** GET /messages/matches_narrow: which of these messages match a narrow, with search words highlighted. */
export const matchesNarrow = defineContract({
  subject: "messaging.messages.matches_narrow",
  http: { method: "GET", path: "/messages/matches_narrow", auth: "user" },
  params: z.object({ msg_ids: intList, narrow: z.array(narrowTermSchema) }),
  reply: z.object({
    /** by message id */
    messages: z.record(z.string(), z.object({ match_content: z.string(), match_subject: z.string() })),
  }),
});

/** Which messages of the topic a topic or channel change applies to, from the edited one. */
export const PROPAGATE_MODES = ["change_one", "change_later", "change_all"] as const;

/** PATCH /messages/{message_id}: edit the content, or move the message (and others of its topic). */
export const updateMessage = defineContract({
  subject: "messaging.messages.update",
  http: { method: "PATCH", path: "/messages/{message_id}", auth: "user" },
  params: z.object({
    message_id: int.min(0),
    stream_id: int.min(0).optional(),
    topic: z.string().optional(),
    /** Zulip's deprecated name for topic */
    subject: z.string().optional(),
    propagate_mode: z.enum(PROPAGATE_MODES).default("change_one"),
    send_notification_to_old_thread: z.boolean().default(false),
    send_notification_to_new_thread: z.boolean().default(true),
    content: z.string().optional(),
  }),
  reply: z.object({
    /** uploads no longer referenced by the edited message (none: uploads are not stored yet) */
    detached_uploads: z.array(z.never()),
  }),
});

/** DELETE /messages/{message_id}. */
export const deleteMessage = defineContract({
  subject: "messaging.messages.delete",
  http: { method: "DELETE", path: "/messages/{message_id}", auth: "user" },
  params: z.object({ message_id: int.min(0) }),
  reply: z.object({}),
});

/** GET /messages/{message_id}/history: the message's versions, oldest first. */
export const getMessageHistory = defineContract({
  subject: "messaging.messages.history",
  http: { method: "GET", path: "/messages/{message_id}/history", auth: "user" },
  params: z.object({ message_id: int.min(0), allow_empty_topic_name: z.boolean().default(false) }),
  reply: z.object({
    message_history: z.array(
      z.object({
        topic: z.string(),
        content: z.string(),
        rendered_content: z.string(),
        timestamp: int,
        user_id: int.nullable(),
        prev_topic: z.string().optional(),
        prev_content: z.string().optional(),
        prev_rendered_content: z.string().optional(),
        prev_stream: int.optional(),
        stream: int.optional(),
      }),
    ),
  }),
});
