import type { Connection } from "mongoose";
import type { ExportRow, IdAllocator } from "@teamchat/shared";
import type { AttachmentDoc } from "../attachments/attachment.schema";
import type { ChannelDoc } from "../channels/channel.schema";
import type { ConversationDoc } from "../conversations/conversation.schema";
import type { MessageDoc } from "../messages/message.schema";
import type { SubscriptionDoc } from "../subscriptions/subscription.schema";
import { channelMessageFlags } from "../user-messages/message-flags";
import { inIntervals, storedState, type ChannelReadState } from "../user-messages/read-state";
import type { ReadStateDoc } from "../user-messages/read-state.schema";
import type { UserMessageDoc } from "../user-messages/user-message.schema";

/** Zulip's Message.MessageType. */
const MessageType = { NORMAL: 1, RESOLVE_TOPIC_NOTIFICATION: 2 } as const;

/** Zulip's rendered_content_version of the renderer that made rendered_content. */
const RENDERED_CONTENT_VERSION = 1;

const MESSAGE_PAGE = 1000;
/** The widest range of message ids read at once (MessagingTables.messagePages). */
const MAX_RANGE = 8 * MESSAGE_PAGE;

/**
 * Messaging's records of one organization as Zulip's export tables
 * (zerver/lib/export.py): channels, recipients, subscriptions, direct message
 * groups, messages and their user rows, reactions, attachments. Reads go
 * straight to the collections, messages in pages by id, so a big
 * organization's history is read a page at a time.
 */
export class MessagingTables {
  constructor(
    private readonly conn: Connection,
    private readonly ids: IdAllocator,
  ) {}

  private collection<T extends object>(name: string) {
    return this.conn.collection<T>(name);
  }

  channels(realmId: number): Promise<ChannelDoc[]> {
    return this.collection<ChannelDoc>("channels").find({ realmId }).sort({ streamId: 1 }).toArray();
  }

  subscriptions(realmId: number): Promise<SubscriptionDoc[]> {
    return this.collection<SubscriptionDoc>("subscriptions").find({ realmId }).toArray();
  }

  conversations(realmId: number): Promise<ConversationDoc[]> {
    return this.collection<ConversationDoc>("conversations").find({ realmId }).toArray();
  }

  attachments(realmId: number): Promise<AttachmentDoc[]> {
    return this.collection<AttachmentDoc>("attachments").find({ realmId }).sort({ attachmentId: 1 }).toArray();
  }

  /**
   * Every message of the organization in id order, a range of ids at a time on the
   * realmId/messageId index, from the first id given out to the last: the embedded engine
   * reads every document a filter matches before it sorts and limits (ADR 0010), so asking
   * for the organization's first message by sort and limit read its whole history at once.
   * A range holds MESSAGE_PAGE ids after one that held messages, and after an empty one
   * (other organizations' ids) twice as many, up to MAX_RANGE: a long stretch of other
   * organizations' ids costs a read per MAX_RANGE ids, and no read holds more messages.
   */
  async *messagePages(realmId: number): AsyncGenerator<MessageDoc[]> {
    const messages = this.collection<MessageDoc>("messages");
    const last = await this.ids.current("message");
    let width = MESSAGE_PAGE;
    for (let from = 1; from <= last;) {
      const page = await messages.find({ realmId, messageId: { $gte: from, $lt: from + width } }).toArray();
      from += width;
      width = page.length ? MESSAGE_PAGE : Math.min(width * 2, MAX_RANGE);
      if (page.length) yield page.sort((a, b) => a.messageId - b.messageId);
    }
  }

  /**
   * Each message's UserMessage rows as Zulip exports them (export.py): one per
   * receiver with their flags. A direct message's are its rows; a channel
   * message's read flag is the receiver's read state in the channel
   * (read-state.ts), its other flags the receiver's sparse row. Both are read
   * once for the whole organization, the realm's read states and rows, as an
   * export reads every message: looking rows up by key per receiver would ask
   * for a row per receiver of every channel message, which almost none has.
   * Rows of users who never received the message (Zulip's "historical") are
   * left out, as the import makes receivers of every row it is given.
   */
  async userMessageFlags(realmId: number): Promise<(m: MessageDoc) => Array<{ userId: number; flags: string[] }>> {
    const [rows, states] = await Promise.all([
      this.collection<UserMessageDoc>("usermessages")
        .find({ realmId }, { projection: { _id: 0, userId: 1, messageId: 1, flags: 1 } })
        .toArray(),
      this.collection<ReadStateDoc>("readstates").find({ realmId }).toArray(),
    ]);
    const rowsOf = new Map<number, Map<number, string[]>>();
    for (const r of rows) {
      const ofMessage = rowsOf.get(r.messageId) ?? rowsOf.set(r.messageId, new Map()).get(r.messageId)!;
      ofMessage.set(r.userId, r.flags);
    }
    const stateOf = new Map<string, ChannelReadState>(states.map((s) => [`${s.userId}:${s.streamId}`, storedState(s)]));
    // a message received by subscription: received by each member whose intervals hold it (ReceiverCache)
    const membersOf = new Map<number, Array<{ userId: number; intervals: number[] }>>();
    for (const s of [...states].sort((a, b) => a.userId - b.userId)) {
      const members = membersOf.get(s.streamId) ?? membersOf.set(s.streamId, []).get(s.streamId)!;
      members.push({ userId: s.userId, intervals: s.intervals });
    }
    const receiversOf = (m: MessageDoc): number[] =>
      m.receivedBySubscription && m.streamId !== null
        ? (membersOf.get(m.streamId) ?? []).filter((s) => inIntervals(s.intervals, m.messageId)).map((s) => s.userId)
        : m.receivers;
    return (m) => {
      const stored = rowsOf.get(m.messageId) ?? new Map<number, string[]>();
      if (m.streamId === null)
        return m.receivers.flatMap((userId) => (stored.has(userId) ? [{ userId, flags: stored.get(userId)! }] : []));
      return receiversOf(m).map((userId) => ({
        userId,
        flags: channelMessageFlags(m, userId, stateOf.get(`${userId}:${m.streamId}`), stored.get(userId)),
      }));
    };
  }
}

export const channelRow = (realmId: number, c: ChannelDoc): ExportRow => ({
  id: c.streamId,
  realm: realmId,
  name: c.name,
  description: c.description,
  rendered_description: c.renderedDescription,
  invite_only: c.inviteOnly,
  is_web_public: c.isWebPublic,
  history_public_to_subscribers: c.historyPublicToSubscribers,
  message_retention_days: c.messageRetentionDays,
  topics_policy: c.topicsPolicy,
  folder: c.folderId,
  deactivated: c.isArchived,
  date_created: c.dateCreated,
  creator: c.creatorId,
  first_message_id: c.firstMessageId,
  recipient: c.recipientId,
  ...Object.fromEntries(Object.entries(c.groupSettings).map(([k, v]) => [k, v])),
});

export const subscriptionRow = (id: number, recipient: number, s: Partial<SubscriptionDoc> & { userId: number }) => ({
  id,
  user_profile: s.userId,
  recipient,
  active: s.active ?? true,
  is_user_active: true,
  color: s.color ?? "#c2c2c2",
  is_muted: s.isMuted ?? false,
  pin_to_top: s.pinToTop ?? false,
  desktop_notifications: s.desktopNotifications ?? null,
  audible_notifications: s.audibleNotifications ?? null,
  push_notifications: s.pushNotifications ?? null,
  email_notifications: s.emailNotifications ?? null,
  wildcard_mentions_notify: s.wildcardMentionsNotify ?? null,
});

export const messageRow = (realmId: number, m: MessageDoc, clientId: number): ExportRow => ({
  id: m.messageId,
  sender: m.senderId,
  recipient: m.recipientId,
  realm: realmId,
  subject: m.topic,
  content: m.content,
  rendered_content: m.renderedContent,
  rendered_content_version: RENDERED_CONTENT_VERSION,
  date_sent: m.timestamp,
  sending_client: clientId,
  last_edit_time: m.lastEditTimestamp ?? null,
  // Zulip keeps edit_history as JSON text, newest entry first
  edit_history: m.editHistory?.length ? JSON.stringify([...m.editHistory].reverse()) : null,
  has_attachment: m.hasAttachment ?? false,
  has_image: m.hasImage ?? false,
  has_link: m.hasLink ?? false,
  is_channel_message: m.type === "stream",
  type: m.messageType === "resolve_topic_notification" ? MessageType.RESOLVE_TOPIC_NOTIFICATION : MessageType.NORMAL,
});

export const attachmentRow = (realmId: number, a: AttachmentDoc): ExportRow => ({
  id: a.attachmentId,
  realm: realmId,
  owner: a.ownerId,
  path_id: a.pathId,
  file_name: a.name,
  content_type: a.contentType,
  size: a.size,
  create_time: a.createTime.getTime() / 1000,
  is_realm_public: null,
  is_web_public: null,
});
