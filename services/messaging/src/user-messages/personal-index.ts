import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  Semaphore,
  messagingEvents,
  subscribeEvent,
  type PayloadOf,
  type EventSubscription,
} from "@teamchat/shared";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { MessageRepository } from "../messages/message.repository";
import { MENTION_FLAGS, STORED_FLAGS, isMention } from "./flags";
import type { UserMessageRepository } from "./user-message.repository";

/** An unread message, as register's unread_msgs groups it. */
export interface UnreadMessage {
  id: number;
  /** null for a direct message */
  streamId: number | null;
  topic: string;
  topicKey: string;
  /** a direct message's participants, ascending; empty for a channel message */
  participants: number[];
  /** the user was mentioned (personally or by a wildcard) */
  mentioned: boolean;
}

/** Zulip's MAX_UNREAD_MESSAGES: the newest this many are kept; older ones are old_unreads_missing. */
export const MAX_UNREAD_MESSAGES = 50000;
/** Flagged messages kept in memory over all users; the least recently used users are dropped beyond it. */
const MAX_CACHED_MESSAGES = 200_000;
/**
 * Users' states loaded at once: more wait, so that the first of many users
 * arriving together are served early rather than all of them late, and a
 * caller whose turn would come after its deadline is refused at once
 * (Semaphore.runInTime).
 */
const CONCURRENT_LOADS = 4;
/** Message ids per `$in` when a user's unread messages are loaded. */
const LOAD_CHUNK = 1000;

/** One user's unread messages, ascending by id. */
export class UnreadSet {
  readonly ids: number[] = [];
  private readonly byId = new Map<number, UnreadMessage>();

  constructor(
    messages: UnreadMessage[],
    /** there were more than MAX_UNREAD_MESSAGES: the oldest are not here */
    readonly olderMissing: boolean,
  ) {
    for (const m of messages.sort((a, b) => a.id - b.id)) this.add(m);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.byId.has(id);
  }

  messages(): UnreadMessage[] {
    return this.ids.map((id) => this.byId.get(id)!);
  }

  /** Drops these messages (read now). */
  remove(ids: Iterable<number>): void {
    let changed = false;
    for (const id of ids) changed = this.byId.delete(id) || changed;
    if (!changed) return;
    let kept = 0;
    for (const id of this.ids) if (this.byId.has(id)) this.ids[kept++] = id;
    this.ids.length = kept;
  }

  clear(): void {
    this.byId.clear();
    this.ids.length = 0;
  }

  /** These messages moved to another channel or topic. */
  move(ids: number[], to: { streamId?: number; topic?: string }): void {
    for (const id of ids) {
      const m = this.byId.get(id);
      if (!m) continue;
      const topic = to.topic ?? m.topic;
      this.byId.set(id, { ...m, streamId: to.streamId ?? m.streamId, topic, topicKey: topic.toLowerCase() });
    }
  }

  /** Whether the user is mentioned in this unread message, after an edit re-rendered it. */
  setMentioned(id: number, mentioned: boolean): void {
    const m = this.byId.get(id);
    if (m) this.byId.set(id, { ...m, mentioned });
  }

  add(m: UnreadMessage): void {
    if (this.byId.has(m.id)) return;
    this.byId.set(m.id, m);
    // New messages come in id order; an older one (an event overtaken by another) is placed by search.
    let i = this.ids.length;
    while (i > 0 && this.ids[i - 1]! > m.id) i--;
    this.ids.splice(i, 0, m.id);
  }
}

/** A direct conversation as register's recent_private_conversations lists it. */
export interface RecentConversation {
  /** every participant, the user included, ascending */
  userIds: number[];
  lastMessageId: number;
}

/**
 * What one user's requests read of their own messages: the unread messages,
 * the messages with any of STORED_FLAGS, the newest message received and the
 * direct conversations' newest messages.
 */
export class PersonalState {
  constructor(
    readonly unread: UnreadSet,
    /** message id → its STORED_FLAGS, for the messages that have any */
    private readonly stored: Map<number, string[]>,
    /** register's max_message_id: -1 before any */
    public latestReceived: number,
    /** by recipient id */
    private readonly conversations: Map<number, RecentConversation>,
  ) {}

  get weight(): number {
    return this.unread.size + this.stored.size + this.conversations.size + 1;
  }

  /** The conversations with messages, the most recent first. */
  recentConversations(): RecentConversation[] {
    return [...this.conversations.values()].sort((a, b) => b.lastMessageId - a.lastMessageId);
  }

  /** The flags of a message for this user, as GET /messages shows them. */
  of(message: { messageId: number; receivers: number[] }, userId: number): string[] {
    const stored = this.stored.get(message.messageId) ?? [];
    const flags = this.unread.has(message.messageId) ? stored : ["read", ...stored];
    // Seen through a channel's shared history, never received: Zulip's "historical", its last flag.
    return message.receivers.includes(userId) ? flags : [...flags, "historical"];
  }

  /** Ids of the messages with any of these stored flags, ascending. */
  withAnyFlag(wanted: readonly string[]): number[] {
    return [...this.stored]
      .flatMap(([id, flags]) => (flags.some((f) => wanted.includes(f)) ? [id] : []))
      .sort((a, b) => a - b);
  }

  /** The message's STORED_FLAGS, if it has any. */
  storedOf(messageId: number): readonly string[] {
    return this.stored.get(messageId) ?? [];
  }

  /** Sets or clears one of STORED_FLAGS on messages. */
  setStored(messageIds: number[], flag: string, on: boolean): void {
    for (const id of messageIds) {
      const rest = (this.stored.get(id) ?? []).filter((f) => f !== flag);
      const flags = on ? STORED_FLAGS.filter((f) => f === flag || rest.includes(f)) : rest;
      if (flags.length) this.stored.set(id, flags);
      else this.stored.delete(id);
    }
  }

  /** A new message this user received, with their flags; `conversation` for a direct message. */
  note(
    unread: UnreadMessage | null,
    messageId: number,
    flags: string[],
    conversation: { recipientId: number; userIds: number[] } | null,
  ): void {
    if (unread) this.unread.add(unread);
    const stored = STORED_FLAGS.filter((f) => flags.includes(f));
    if (stored.length) this.stored.set(messageId, stored);
    this.latestReceived = Math.max(this.latestReceived, messageId);
    if (conversation) {
      const known = this.conversations.get(conversation.recipientId);
      this.conversations.set(conversation.recipientId, {
        userIds: conversation.userIds,
        lastMessageId: Math.max(known?.lastMessageId ?? 0, messageId),
      });
    }
  }
}

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
type FlagsUpdated = PayloadOf<typeof messagingEvents.messageFlagsUpdated>;
type MessageUpdated = PayloadOf<typeof messagingEvents.messageUpdated>;
type MessagesDeleted = PayloadOf<typeof messagingEvents.messagesDeleted>;

/**
 * Each user's personal state (PersonalState), kept in memory: GET /messages'
 * flags, first_unread anchors, is:unread / is:starred / is:mentioned narrows
 * and register's unread_msgs, starred_messages, max_message_id and
 * recent_private_conversations read it here, not from the user's rows.
 * Loaded on first use (the user's marked rows, unread or flagged: one read
 * bounded by what it returns; the newest message received; the user's
 * conversations); kept current by message events (see EventCache for why a
 * message sent through any instance is in every instance's copy by the
 * sender's next request). Flag changes must reach it the same way.
 */
export class PersonalIndex {
  private readonly cache: EventCache<PersonalState>;
  private readonly loads = new Semaphore(CONCURRENT_LOADS);
  private readonly subs: EventSubscription[];

  constructor(
    private readonly messages: MessageRepository,
    private readonly userMessages: UserMessageRepository,
    private readonly conversations: ConversationRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "personal-index", maxWeight: MAX_CACHED_MESSAGES, weigh: (f) => f.weight });
    this.subs = [
      subscribeEvent(nc, messagingEvents.messageSent, (e) => this.onMessage(e), { log }),
      subscribeEvent(nc, messagingEvents.messageFlagsUpdated, (e) => this.onFlags(e), { log }),
      subscribeEvent(nc, messagingEvents.messageUpdated, (e) => this.onUpdate(e), { log }),
      subscribeEvent(nc, messagingEvents.messagesDeleted, (e) => this.onDelete(e), { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  /** The user's personal state. */
  of(realmId: number, userId: number): Promise<PersonalState> {
    return this.cache.get(`${realmId}:${userId}`, () => this.loads.runInTime(() => this.load(realmId, userId)));
  }

  /** The user's state from the database: their unread or flagged rows, newest received message and conversations. */
  private async load(realmId: number, userId: number): Promise<PersonalState> {
    const [marked, latestReceived, conversations] = await Promise.all([
      this.userMessages.markedOf(realmId, userId),
      this.messages.latestReceivedId(realmId, userId),
      this.conversations.recentOf(realmId, userId),
    ]);
    const stored = new Map<number, string[]>();
    for (const row of marked) {
      const flags = STORED_FLAGS.filter((f) => row.flags.includes(f));
      if (flags.length) stored.set(row.messageId, flags);
    }
    return new PersonalState(
      await this.loadUnread(
        realmId,
        marked.filter((r) => r.unread),
      ),
      stored,
      latestReceived,
      new Map(conversations.map((c) => [c.recipientId, { userIds: c.userIds, lastMessageId: c.lastMessageId }])),
    );
  }

  private async loadUnread(
    realmId: number,
    unreadRows: Array<{ messageId: number; flags: string[] }>,
  ): Promise<UnreadSet> {
    const rows = unreadRows.sort((a, b) => a.messageId - b.messageId);
    const kept = rows.slice(-MAX_UNREAD_MESSAGES);
    const mentioned = new Set(kept.filter((r) => isMention(r.flags)).map((r) => r.messageId));
    const unread: UnreadMessage[] = [];
    for (let i = 0; i < kept.length; i += LOAD_CHUNK) {
      const ids = kept.slice(i, i + LOAD_CHUNK).map((r) => r.messageId);
      for (const m of await this.messages.summaries(realmId, ids)) {
        unread.push({
          id: m.messageId,
          streamId: m.streamId,
          topic: m.topic,
          topicKey: m.topicKey,
          participants: m.type === "private" ? m.receivers : [],
          mentioned: mentioned.has(m.messageId),
        });
      }
    }
    return new UnreadSet(unread, rows.length > kept.length);
  }

  /** A flag change, as the user's clients hear it (update_message_flags). */
  private onFlags({ realmId, userIds, event }: FlagsUpdated): void {
    if (userIds === "all") return;
    for (const userId of userIds) {
      this.cache.update(`${realmId}:${userId}`, (s) => {
        if (event.flag !== "read") return s.setStored(event.messages, event.flag, event.op === "add");
        if (event.all) return s.unread.clear();
        if (event.op === "add") return s.unread.remove(event.messages);
        for (const [id, d] of Object.entries(event.message_details ?? {})) {
          const topic = d.topic ?? "";
          s.unread.add({
            id: Number(id),
            streamId: d.stream_id ?? null,
            topic,
            topicKey: topic.toLowerCase(),
            participants: d.type === "private" ? [...(d.user_ids ?? []), userId].sort((a, b) => a - b) : [],
            mentioned: d.mentioned === true,
          });
        }
      });
    }
  }

  /** Moved messages keep their unread entries, in their new place; an edit's mentions replace the old ones. */
  private onUpdate({ realmId, userIds, event, flags }: MessageUpdated): void {
    const to = { streamId: event.new_stream_id, topic: event.subject };
    for (const userId of userIds) {
      this.cache.update(`${realmId}:${userId}`, (s) => {
        s.unread.move(event.message_ids, to);
        if (event.content === undefined) return;
        const userFlags = flags[userId] ?? [];
        for (const flag of MENTION_FLAGS) s.setStored([event.message_id], flag, userFlags.includes(flag));
        s.unread.setMentioned(event.message_id, isMention(userFlags));
      });
    }
  }

  /**
   * Deleted messages (or no longer visible) leave the user's state; a direct
   * conversation's newest message may be gone, so its users' states are reloaded.
   */
  private onDelete({ realmId, userIds, event }: MessagesDeleted): void {
    if (userIds === "all") return;
    const ids = event.message_ids ?? [];
    for (const userId of userIds) {
      const key = `${realmId}:${userId}`;
      if (event.message_type === "private") {
        this.cache.drop(key);
        continue;
      }
      this.cache.update(key, (s) => {
        s.unread.remove(ids);
        for (const flag of STORED_FLAGS) s.setStored(ids, flag, false);
      });
    }
  }

  private onMessage({ realmId, message, flags }: MessageSent): void {
    // the same for every recipient: only their flags differ
    const participants =
      message.type === "private" ? message.display_recipient.map((r) => r.id).sort((a, b) => a - b) : [];
    const where =
      message.type === "stream"
        ? { streamId: message.stream_id, topic: message.subject, topicKey: message.subject.toLowerCase() }
        : { streamId: null, topic: "", topicKey: "" };
    const conversation =
      message.type === "private" ? { recipientId: message.recipient_id, userIds: participants } : null;
    for (const [user, userFlags] of Object.entries(flags)) {
      const unread: UnreadMessage | null = userFlags.includes("read")
        ? null
        : { id: message.id, ...where, participants, mentioned: isMention(userFlags) };
      this.cache.update(`${realmId}:${user}`, (s) => s.note(unread, message.id, userFlags, conversation));
    }
  }
}
