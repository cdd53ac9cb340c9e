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
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import { inFlagOrder, isMention, mayMention } from "./flags";
import type { UserMessageRepository } from "./user-message.repository";
import type { UnreadBucketRepository } from "./unread-bucket.repository";
import type { UnreadSet, UnreadMessage } from "./unread-set";
import { UnreadSummary, type FoldSettings } from "./unread-summary";

/** Unread messages kept in memory over all users; the least recently used users are dropped beyond it. */
const MAX_CACHED_MESSAGES = 200_000;
/** Users' states loaded at once: more wait, so that one user's load never holds up the whole instance. */
const CONCURRENT_LOADS = 4;

/** A direct conversation as register's recent_private_conversations lists it. */
export interface RecentConversation {
  /** every participant, the user included, ascending */
  userIds: number[];
  lastMessageId: number;
}

/** Flags only the user sets (Zulip's editable flags besides "read"): few, so kept in memory per user. */
const USER_SET_FLAGS = ["starred", "collapsed"] as const;

/**
 * What one user's requests read of their own messages: the unread messages,
 * the messages they starred or collapsed, the newest message received and the
 * direct conversations' newest messages. Mention and alert-word flags of read
 * messages are not here: they are read from the rows of the messages shown
 * (PersonalIndex.flagsOf).
 */
export class PersonalState {
  constructor(
    readonly unread: UnreadSet,
    /** message id → its USER_SET_FLAGS, for the messages that have any */
    private readonly userSet: Map<number, string[]>,
    /** register's max_message_id: -1 before any */
    public latestReceived: number,
    /** by recipient id */
    private readonly conversations: Map<number, RecentConversation>,
  ) {}

  /** messages received since this state last had its new rows folded (UnreadSummary) */
  receivedSinceFold = 0;

  get weight(): number {
    return this.unread.size + this.userSet.size + this.conversations.size + 1;
  }

  /** The conversations with messages, the most recent first. */
  recentConversations(): RecentConversation[] {
    return [...this.conversations.values()].sort((a, b) => b.lastMessageId - a.lastMessageId);
  }

  /** Ids of the messages with one of USER_SET_FLAGS, ascending. */
  withFlag(flag: (typeof USER_SET_FLAGS)[number]): number[] {
    return [...this.userSet].flatMap(([id, flags]) => (flags.includes(flag) ? [id] : [])).sort((a, b) => a - b);
  }

  /** The flags of a message whose row was not read: its read state and USER_SET_FLAGS. */
  flagsWithoutRow(messageId: number): string[] {
    const set = this.userSet.get(messageId) ?? [];
    return this.unread.has(messageId) ? [...set] : ["read", ...set];
  }

  /** Sets or clears one of USER_SET_FLAGS on messages (other flags are not kept here). */
  setUserFlag(messageIds: number[], flag: string, on: boolean): void {
    if (!(USER_SET_FLAGS as readonly string[]).includes(flag)) return;
    for (const id of messageIds) {
      const rest = (this.userSet.get(id) ?? []).filter((f) => f !== flag);
      const flags = on ? USER_SET_FLAGS.filter((f) => f === flag || rest.includes(f)) : rest;
      if (flags.length) this.userSet.set(id, flags);
      else this.userSet.delete(id);
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
    const set = USER_SET_FLAGS.filter((f) => flags.includes(f));
    if (set.length) this.userSet.set(messageId, set);
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
 * flags, first_unread anchors, is:unread / is:starred narrows and register's
 * unread_msgs, starred_messages, max_message_id and recent_private_conversations
 * read it here. Loaded on first use in time that does not grow with the
 * user's history: the unread summary (UnreadBucketRepository, a few documents),
 * the starred and collapsed rows, the newest message received and the user's
 * conversations. Kept current by message events (see EventCache for why a
 * message sent through any instance is in every instance's copy by the
 * sender's next request); every write of the summary publishes one.
 */
export class PersonalIndex {
  private readonly cache: EventCache<PersonalState>;
  private readonly subs: EventSubscription[];
  private readonly loads = new Semaphore(CONCURRENT_LOADS);
  /** the unread messages as stored, which a load reads */
  readonly summary: UnreadSummary;

  constructor(
    private readonly deps: {
      messages: MessageRepository;
      userMessages: UserMessageRepository;
      unreadBuckets: UnreadBucketRepository;
      conversations: ConversationRepository;
      alertWords: AlertWordIndex;
    },
    fold: FoldSettings,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.summary = new UnreadSummary(deps, fold, log);
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
    return this.cache.get(`${realmId}:${userId}`, () =>
      this.loads.run(async () => {
        const { messages, conversations } = this.deps;
        const [{ unread, starred, collapsed }, latestReceived, recent] = await Promise.all([
          this.summary.of(realmId, userId),
          messages.latestReceivedId(realmId, userId),
          conversations.recentOf(realmId, userId),
        ]);
        const userSet = new Map<number, string[]>();
        for (const id of starred) userSet.set(id, ["starred"]);
        for (const id of collapsed) userSet.set(id, [...(userSet.get(id) ?? []), "collapsed"]);
        return new PersonalState(
          unread,
          userSet,
          latestReceived,
          new Map(recent.map((c) => [c.recipientId, { userIds: c.userIds, lastMessageId: c.lastMessageId }])),
        );
      }),
    );
  }

  /**
   * The flags of messages shown to the user, as GET /messages shows them. A
   * message that may carry a mention or alert-word flag (its rendering holds a
   * mention, or the user has alert words) is looked up in the user's rows; the
   * others' flags are the personal state's. So a page costs at most one read
   * of its own rows, whatever the history.
   */
  async flagsOf(
    realmId: number,
    userId: number,
    shown: ReadonlyArray<{ messageId: number; receivers: number[]; renderedContent: string }>,
  ): Promise<(message: { messageId: number; receivers: number[] }) => string[]> {
    const [state, alertWords] = await Promise.all([
      this.of(realmId, userId),
      this.deps.alertWords.ofUser(realmId, userId),
    ]);
    const lookedUp = shown
      .filter((m) => alertWords.length > 0 || mayMention(m.renderedContent))
      .map((m) => m.messageId);
    const rows = await this.deps.userMessages.flagsOf(realmId, userId, lookedUp);
    return (message) => {
      const row = rows.get(message.messageId);
      const flags = row ? inFlagOrder(row) : state.flagsWithoutRow(message.messageId);
      // Seen through a channel's shared history, never received: Zulip's "historical", its last flag.
      return message.receivers.includes(userId) ? flags : [...flags, "historical"];
    };
  }

  /** Ids of the user's messages with this flag, ascending (is:starred, is:mentioned, is:alerted). */
  async withFlag(realmId: number, userId: number, flag: string): Promise<number[]> {
    if ((USER_SET_FLAGS as readonly string[]).includes(flag)) {
      return (await this.of(realmId, userId)).withFlag(flag as (typeof USER_SET_FLAGS)[number]);
    }
    const rows = await this.deps.userMessages.withAnyFlag(realmId, userId, [flag]);
    return rows.map((r) => r.messageId).sort((a, b) => a - b);
  }

  /** A flag change, as the user's clients hear it (update_message_flags). */
  private onFlags({ realmId, userIds, event }: FlagsUpdated): void {
    if (userIds === "all") return;
    for (const userId of userIds) {
      this.cache.update(`${realmId}:${userId}`, (s) => {
        if (event.flag !== "read") return s.setUserFlag(event.messages, event.flag, event.op === "add");
        if (event.all) return s.unread.clear();
        if (event.op === "add") return s.unread.remove(event.messages);
        for (const [id, d] of Object.entries(event.message_details ?? {})) {
          const topic = d.topic ?? "";
          s.unread.add({
            id: Number(id),
            streamId: d.stream_id ?? null,
            topic,
            participants: d.type === "private" ? [...(d.user_ids ?? []), userId].sort((a, b) => a - b) : [],
            mentioned: d.mentioned === true,
            direct: d.mentioned === true,
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
        if (event.content !== undefined) s.unread.setMentioned(event.message_id, flags[userId] ?? []);
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
        for (const flag of USER_SET_FLAGS) s.setUserFlag(ids, flag, false);
      });
    }
  }

  private onMessage({ realmId, message, flags }: MessageSent): void {
    // the same for every recipient: only their flags differ
    const participants =
      message.type === "private" ? message.display_recipient.map((r) => r.id).sort((a, b) => a - b) : [];
    const where =
      message.type === "stream"
        ? { streamId: message.stream_id, topic: message.subject }
        : { streamId: null, topic: "" };
    const conversation =
      message.type === "private" ? { recipientId: message.recipient_id, userIds: participants } : null;
    for (const [user, userFlags] of Object.entries(flags)) {
      const unread: UnreadMessage | null = userFlags.includes("read")
        ? null
        : {
            id: message.id,
            ...where,
            participants,
            mentioned: isMention(userFlags),
            direct: userFlags.includes("mentioned"),
          };
      this.cache.update(`${realmId}:${user}`, (s) => {
        s.note(unread, message.id, userFlags, conversation);
        // a user whose state stays in memory is never loaded again: their new rows are folded as they come
        if (++s.receivedSinceFold >= this.summary.settings.rows) {
          s.receivedSinceFold = 0;
          this.summary.foldLater(realmId, Number(user));
        }
      });
    }
  }
}
