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
import type { MessageDoc } from "../messages/message.schema";
import type { RecentMessages } from "../messages/recent-messages";
import type { ReceivedRanges } from "../narrow/conditions";
import { receivedWith, type ReceivedMessage } from "./receiver-cache";
import { MAX_UNREAD_MESSAGES, type ChannelMessageCache, type ChannelMessages } from "../messages/channel-message-cache";
import { MENTION_FLAGS, STORED_FLAGS, isMention, withChannelWildcard, withoutChannelWildcard } from "./flags";
import {
  forEachUnreadAbove,
  indexOf,
  isUnread,
  received,
  subscribedNow,
  type ChannelMessageRef,
  type ChannelReadState,
} from "./read-state";
import type { ReadStateRepository, VersionedReadState } from "./read-state.repository";
import type { UserMessageRepository } from "./user-message.repository";

/** An unread message, as register's unread_msgs groups it. */
export interface UnreadMessage {
  id: number;
  /** null for a direct message */
  streamId: number | null;
  topic: string;
  topicKey: string;
  /** a direct message's participants, ascending; empty for a channel message */
  participants: readonly number[];
  /** the user was mentioned (personally or by a wildcard) */
  mentioned: boolean;
}

/** A channel's topic with unread messages, as register's unread_msgs lists it. */
export interface UnreadTopic {
  streamId: number;
  /** as its first unread message spells it */
  topic: string;
  /** ascending */
  ids: number[];
  /** those of `ids` that mention the user (personally or by a wildcard), ascending */
  mentioned: number[];
}

/** What users' states may weigh in all (PersonalState.weight); the least recently used users are dropped beyond it. */
const MAX_CACHED_WEIGHT = 200_000;
/**
 * Users' states loaded at once: more wait, so that the first of many users
 * arriving together are served early rather than all of them late, and a
 * caller whose turn would come after its deadline is refused at once
 * (Semaphore.runInTime).
 */
const CONCURRENT_LOADS = 4;
/** Message ids per `$in` when a user's unread direct messages are loaded. */
const LOAD_CHUNK = 1000;

const byFirstId = (a: UnreadTopic, b: UnreadTopic) => a.ids[0]! - b.ids[0]!;

/** A channel message's participants, as unread_msgs groups it: none (shared, never changed). */
const NO_PARTICIPANTS: readonly number[] = Object.freeze([]);

/** One user's unread direct messages, ascending by id. */
export class UnreadSet {
  readonly ids: number[] = [];
  private readonly byId = new Map<number, UnreadMessage>();

  constructor(messages: UnreadMessage[]) {
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

/** An unread channel message below its channel's window (ChannelMessages.floor): marked unread long after. */
interface OutsideMessage {
  streamId: number;
  topic: string;
  senderId: number;
  /** it mentions its whole channel (MessageDoc.streamWildcard) */
  streamWildcard: boolean;
}

/**
 * What one user's requests read of their own messages, held per user: the
 * read state of each channel they were subscribed to (watermark and
 * exceptions, read-state.ts), their unread direct messages, the messages with
 * any of STORED_FLAGS, the newest message received and the direct
 * conversations' newest messages. Nothing here grows with unread channel
 * messages: those are worked out from the channels' shared ChannelMessages.
 */
export class PersonalState {
  constructor(
    /** by channel id */
    readonly channels: Map<number, ChannelReadState>,
    /** by message id */
    readonly outside: Map<number, OutsideMessage>,
    /** unread direct messages */
    readonly direct: UnreadSet,
    /** message id → its STORED_FLAGS, for the messages that have any */
    private readonly stored: Map<number, string[]>,
    /** register's max_message_id: -1 before any */
    public latestReceived: number,
    /** by recipient id */
    private readonly conversations: Map<number, RecentConversation>,
  ) {}

  /**
   * The version each channel's state was stored at, for those this copy holds
   * exactly as stored (read, or told by a flags event): a change tries it
   * before reading the state again (ReadStateRepository.change). A state this
   * copy changed on its own has none.
   */
  readonly versions = new Map<number, number>();

  /** The channel's state with the version it was stored at, when this copy holds it as stored. */
  versionedState(streamId: number): VersionedReadState | undefined {
    const state = this.channels.get(streamId);
    const version = this.versions.get(streamId);
    return state && version !== undefined ? { streamId, state, version } : undefined;
  }

  /**
   * Takes a channel's state as stored at `version` (none: changed where no version was kept), unless
   * this copy already holds that state at the same or a later version: the flags event of one write
   * can arrive after the next write of the same state was noted here, and must not set it back.
   */
  takeStored(streamId: number, state: ChannelReadState, version: number | undefined): void {
    const held = this.versions.get(streamId);
    if (version !== undefined && held !== undefined && version <= held) return;
    this.channels.set(streamId, state);
    if (version === undefined) this.versions.delete(streamId);
    else this.versions.set(streamId, version);
  }

  get weight(): number {
    let exceptions = 0;
    for (const s of this.channels.values()) exceptions += s.exceptions.length + 1;
    return exceptions + this.outside.size + this.direct.size + this.stored.size + this.conversations.size + 1;
  }

  /** The conversations with messages, the most recent first. */
  recentConversations(): RecentConversation[] {
    return [...this.conversations.values()].sort((a, b) => b.lastMessageId - a.lastMessageId);
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
    if (unread) this.direct.add(unread);
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

  /** Messages moved to another topic of their channel: those below its window are remembered under it. */
  retopic(ids: number[], topic: string): void {
    for (const id of ids) {
      const outside = this.outside.get(id);
      if (outside) this.outside.set(id, { ...outside, topic });
    }
  }

  /** Messages gone (deleted, or moved out of reach): their flags and exceptions go too. */
  forget(ids: number[]): void {
    this.direct.remove(ids);
    for (const flag of STORED_FLAGS) this.setStored(ids, flag, false);
    for (const id of ids) this.outside.delete(id);
    const gone = new Set(ids);
    for (const [streamId, s] of this.channels) {
      if (s.exceptions.some((id) => gone.has(id))) {
        this.channels.set(streamId, { ...s, exceptions: s.exceptions.filter((id) => !gone.has(id)) });
        this.versions.delete(streamId);
      }
    }
  }
}

/**
 * A user's unread messages as one request sees them: worked out once, from
 * the user's read states and their channels' messages, when first asked.
 */
export class UnreadList {
  readonly ids: number[];
  readonly olderMissing: boolean;
  private readonly kept: UnreadMessage[];
  #byId: Map<number, UnreadMessage> | undefined;

  constructor(messages: UnreadMessage[], olderMissing: boolean) {
    const sorted = messages.sort((a, b) => a.id - b.id);
    this.kept = sorted.length > MAX_UNREAD_MESSAGES ? sorted.slice(-MAX_UNREAD_MESSAGES) : sorted;
    this.ids = this.kept.map((m) => m.id);
    this.olderMissing = olderMissing || this.kept.length < sorted.length;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.byId.has(id);
  }

  get(id: number): UnreadMessage | undefined {
    return this.byId.get(id);
  }

  messages(): readonly UnreadMessage[] {
    return this.kept;
  }

  /** Built when first asked: most requests only list the ids. */
  private get byId(): Map<number, UnreadMessage> {
    return (this.#byId ??= new Map(this.kept.map((m) => [m.id, m])));
  }
}

/** A user's personal state with the messages of their channels: what one request reads. */
export class PersonalView {
  #unread: UnreadList | undefined;

  constructor(
    readonly state: PersonalState,
    readonly userId: number,
    /** the channels of the user's read states, by channel id */
    readonly channelMessages: ReadonlyMap<number, ChannelMessages>,
  ) {}

  get latestReceived(): number {
    return this.state.latestReceived;
  }

  recentConversations(): RecentConversation[] {
    return this.state.recentConversations();
  }

  withAnyFlag(wanted: readonly string[]): number[] {
    return this.state.withAnyFlag(wanted);
  }

  storedOf(messageId: number): readonly string[] {
    return this.state.storedOf(messageId);
  }

  /** The user's subscription intervals per channel: which messages received by subscription they received. */
  get received(): ReceivedRanges {
    return new Map([...this.state.channels].map(([streamId, s]) => [streamId, s.intervals]));
  }

  /**
   * What the user has Zulip's UserMessage rows of, as the "receivers" narrow
   * condition takes it: the messages received by subscription (intervals per
   * channel), and besides them, ascending, those with a stored flag and those
   * seen in a channel's history and marked unread (Zulip's
   * do_update_message_flags gives those a historical row).
   */
  get withRows(): { channels: ReceivedRanges; rows: number[] } {
    const rows = new Set(this.state.withAnyFlag(STORED_FLAGS));
    for (const s of this.state.channels.values()) {
      // not received, read by default: an exception is one marked unread
      for (const id of s.exceptions) if (!received(s, id)) rows.add(id);
    }
    return { channels: this.received, rows: [...rows].sort((a, b) => a - b) };
  }

  /** Whether the user received the message (else they see it in a channel's history). */
  hasReceived(message: ReceivedMessage): boolean {
    const state = message.streamId === null ? undefined : this.state.channels.get(message.streamId);
    return receivedWith(message, this.userId, state?.intervals);
  }

  /** Whether the user is subscribed to the channel now. */
  subscribedTo(streamId: number): boolean {
    const state = this.state.channels.get(streamId);
    return state !== undefined && subscribedNow(state);
  }

  /** The user's unread messages (the newest MAX_UNREAD_MESSAGES), ascending by id. */
  get unread(): UnreadList {
    return (this.#unread ??= this.listUnread());
  }

  /** A channel message as its read state needs it: its sender, from the channel's messages when held. */
  refOf(streamId: number, id: number, senderId?: number): ChannelMessageRef {
    const channel = this.channelMessages.get(streamId);
    const i = channel ? indexOf(channel.ids, id) : -1;
    return { id, senderId: senderId ?? (i >= 0 ? channel!.senders[i]! : (this.state.outside.get(id)?.senderId ?? -1)) };
  }

  /** The flags of a message for this user, as GET /messages shows them. */
  of(message: ReceivedMessage & Pick<MessageDoc, "senderId" | "streamWildcard">): string[] {
    const id = message.messageId;
    const stored = this.state.storedOf(id);
    const state = message.streamId === null ? undefined : this.state.channels.get(message.streamId);
    const unread =
      message.streamId === null
        ? this.state.direct.has(id)
        : state !== undefined && isUnread(state, { id, senderId: message.senderId }, this.userId);
    const flags = unread ? [...stored] : ["read", ...stored];
    // Seen through a channel's shared history, never received: Zulip's "historical", its last flag, and
    // no @all mention (Zulip's create_user_messages flags its recipients' rows).
    if (!this.hasReceived(message)) return [...flags, "historical"];
    return message.streamWildcard ? withChannelWildcard(flags) : flags;
  }

  /**
   * The ids of the unread messages, as `unread.ids`, without an entry built for
   * each message when that list is not at hand: a first_unread anchor or an
   * is:unread narrow needs only the ids.
   */
  get unreadIds(): number[] {
    if (this.#unread) return this.#unread.ids;
    const ids = [...this.state.direct.ids];
    this.forEachChannelUnread((id) => ids.push(id));
    ids.sort((a, b) => a - b);
    return ids.length > MAX_UNREAD_MESSAGES ? ids.slice(-MAX_UNREAD_MESSAGES) : ids;
  }

  /**
   * The unread messages as register's unread_msgs groups them: the direct
   * ones, and the channel ones by topic, the topics in the order of their
   * first message, without an entry built for each message (a busy user has
   * 10,000). The newest MAX_UNREAD_MESSAGES in all, as `unread` keeps.
   */
  unreadGroups(): { direct: readonly UnreadMessage[]; topics: UnreadTopic[]; olderMissing: boolean } {
    let direct = this.state.direct.messages();
    let topics: UnreadTopic[] = [];
    // each channel is visited in one run: its topics by key, each key's lowercasing done once
    let streamOfTopics = -1;
    let ofChannel = new Map<string, UnreadTopic>();
    const keys = new Map<string, string>();
    let count = direct.length;
    const olderMissing = this.forEachChannelUnread((id, streamId, topic, mentioned) => {
      if (streamId !== streamOfTopics) [streamOfTopics, ofChannel] = [streamId, new Map()];
      let key = keys.get(topic);
      if (key === undefined) keys.set(topic, (key = topic.toLowerCase()));
      let group = ofChannel.get(key);
      if (!group) {
        group = { streamId, topic, ids: [], mentioned: [] };
        ofChannel.set(key, group);
        topics.push(group);
      }
      group.ids.push(id);
      if (mentioned) group.mentioned.push(id);
      count++;
    });
    if (count <= MAX_UNREAD_MESSAGES) return { direct, topics: topics.sort(byFirstId), olderMissing };
    const newestFirst = [...direct.map((m) => m.id), ...topics.flatMap((t) => t.ids)].sort((a, b) => b - a);
    const oldestKept = newestFirst[MAX_UNREAD_MESSAGES - 1]!;
    direct = direct.filter((m) => m.id >= oldestKept);
    topics = topics
      .map((t) => ({
        ...t,
        ids: t.ids.filter((id) => id >= oldestKept),
        mentioned: t.mentioned.filter((id) => id >= oldestKept),
      }))
      .filter((t) => t.ids.length);
    return { direct, topics: topics.sort(byFirstId), olderMissing: true };
  }

  /** The unread messages with what register's unread_msgs groups them by. */
  private listUnread(): UnreadList {
    const { state } = this;
    const unread: UnreadMessage[] = [...state.direct.messages()];
    // a channel's messages share a few hundred topics at most
    const keys = new Map<string, string>();
    const olderMissing = this.forEachChannelUnread((id, streamId, topic, mentioned) => {
      let topicKey = keys.get(topic);
      if (topicKey === undefined) keys.set(topic, (topicKey = topic.toLowerCase()));
      unread.push({ id, streamId, topic, topicKey, participants: NO_PARTICIPANTS, mentioned });
    });
    return new UnreadList(unread, olderMissing);
  }

  /**
   * Visits each unread channel message, with whether it mentions the user,
   * worked out from the read states and the channels' messages in one pass
   * over each channel's messages above the watermark (read-state.ts's rule,
   * inlined: this runs for every register). True when a channel's older
   * unread messages are beyond what it holds.
   */
  private forEachChannelUnread(
    visit: (id: number, streamId: number, topic: string, mentioned: boolean) => void,
  ): boolean {
    const { state, userId } = this;
    let olderMissing = false;
    for (const [streamId, s] of state.channels) {
      const channel = this.channelMessages.get(streamId);
      if (!channel) continue;
      if (s.watermark < channel.floor && subscribedNow(s)) olderMissing = true;
      const { ids, senders, topics } = channel;
      // a stored mention flag, or an @all mention of a message the user received (unread, it may be
      // one they see in the channel's history, marked unread)
      const mentioned = (id: number, streamWildcard: boolean) =>
        isMention(state.storedOf(id)) || (streamWildcard && received(s, id));
      // below the watermark, the exceptions are the unread, if still the channel's
      for (const id of s.exceptions) {
        if (id > s.watermark) break;
        const outside = state.outside.get(id);
        const held = channel.topicOf(id);
        const topic = held ?? (outside?.streamId === streamId ? outside.topic : undefined);
        if (topic === undefined) continue;
        const streamWildcard = held === undefined ? outside!.streamWildcard : channel.mentionsChannel(id);
        visit(id, streamId, topic, mentioned(id, streamWildcard));
      }
      forEachUnreadAbove(s, userId, ids, senders, (i) =>
        visit(ids[i]!, streamId, topics[i]!, mentioned(ids[i]!, channel.mentionsChannel(ids[i]!))),
      );
    }
    return olderMissing;
  }
}

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
type FlagsUpdated = PayloadOf<typeof messagingEvents.messageFlagsUpdated>;
type MessageUpdated = PayloadOf<typeof messagingEvents.messageUpdated>;
type MessagesDeleted = PayloadOf<typeof messagingEvents.messagesDeleted>;
type SubscriptionChanged = PayloadOf<typeof messagingEvents.subscriptionChanged>;

/**
 * Each user's personal state (PersonalState), kept in memory: GET /messages'
 * flags, first_unread anchors, is:unread / is:starred / is:mentioned narrows
 * and register's unread_msgs, starred_messages, max_message_id and
 * recent_private_conversations read it here. Loaded on first use from a
 * number of documents that does not grow with the user's unread messages:
 * their read states (one per channel), their rows (direct messages unread,
 * and messages with a stored flag), the newest message received and their
 * conversations; the channels' messages come from ChannelMessageCache, shared
 * by every member. Kept current by message, flag and subscription events (see
 * EventCache for why a change made through any instance is in every
 * instance's copy by the next request).
 */
export class PersonalIndex {
  private readonly cache: EventCache<PersonalState>;
  private readonly loads = new Semaphore(CONCURRENT_LOADS);
  private readonly subs: EventSubscription[];

  constructor(
    private readonly messages: MessageRepository,
    private readonly userMessages: UserMessageRepository,
    private readonly readStates: ReadStateRepository,
    private readonly conversations: ConversationRepository,
    private readonly channels: ChannelMessageCache,
    private readonly recent: RecentMessages,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "personal-index", maxWeight: MAX_CACHED_WEIGHT, weigh: (f) => f.weight });
    this.subs = [
      subscribeEvent(nc, messagingEvents.messageSent, (e) => this.onMessage(e), { log }),
      subscribeEvent(nc, messagingEvents.messageFlagsUpdated, (e) => this.onFlags(e), { log }),
      subscribeEvent(nc, messagingEvents.messageUpdated, (e) => this.onUpdate(e), { log }),
      subscribeEvent(nc, messagingEvents.messagesDeleted, (e) => this.onDelete(e), { log }),
      subscribeEvent(nc, messagingEvents.subscriptionChanged, (e) => this.onSubscription(e), { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  /** The user's personal state, with the messages of the channels it covers. */
  async of(realmId: number, userId: number): Promise<PersonalView> {
    const key = `${realmId}:${userId}`;
    const state =
      this.cache.held(key)?.value ??
      (await this.cache.get(key, async () => {
        const readStates = await this.readStates.ofUser(realmId, userId);
        // The channels' messages are shared by their members: loaded (or joined) before the user's
        // turn, whose wait is estimated from what turns took, and one channel's load is not a turn's.
        await this.channelsOf(realmId, new Map(readStates.map((r) => [r.streamId, r.state])));
        return this.loads.runInTime(() => this.load(realmId, userId, readStates));
      }));
    return new PersonalView(state, userId, await this.channelsOf(realmId, state.channels));
  }

  /** The messages of the channels whose read state needs them: those subscribed to, or with exceptions. */
  private async channelsOf(
    realmId: number,
    states: Map<number, ChannelReadState>,
  ): Promise<Map<number, ChannelMessages>> {
    const channels = new Map<number, ChannelMessages>();
    const missing: Array<[number, ChannelReadState]> = [];
    // a reader of 50 channels finds them held: taken without a promise each (EventCache.held)
    for (const [streamId, s] of states) {
      if (!subscribedNow(s) && !s.exceptions.length) continue;
      const held = this.channels.held(realmId, streamId, s.watermark);
      if (held) channels.set(streamId, held);
      else missing.push([streamId, s]);
    }
    await Promise.all(
      missing.map(async ([streamId, s]) =>
        channels.set(streamId, await this.channels.of(realmId, streamId, s.watermark)),
      ),
    );
    return channels;
  }

  /** The user's state from the database: their read states, rows, newest received message and conversations. */
  private async load(realmId: number, userId: number, readStates: VersionedReadState[]): Promise<PersonalState> {
    const [marked, conversations] = await Promise.all([
      this.userMessages.markedOf(realmId, userId),
      this.conversations.recentOf(realmId, userId),
    ]);
    const channels = new Map(readStates.map((r) => [r.streamId, r.state]));
    // the newest of its channels and of its direct conversations, then any stored receiver above it (a moved message)
    const known = Math.max(
      -1,
      ...conversations.map((c) => c.lastMessageId),
      ...(await Promise.all([...channels].map(([streamId, s]) => this.newestReceivedIn(realmId, userId, streamId, s)))),
    );
    const latestReceived = Math.max(known, await this.messages.newestReceivedAbove(realmId, userId, known));
    const stored = new Map<number, string[]>();
    for (const row of marked) {
      const flags = STORED_FLAGS.filter((f) => row.flags.includes(f));
      if (flags.length) stored.set(row.messageId, flags);
    }
    const state = new PersonalState(
      channels,
      await this.loadOutside(realmId, channels),
      await this.loadDirect(
        realmId,
        marked.filter((r) => r.unread),
      ),
      stored,
      latestReceived,
      new Map(conversations.map((c) => [c.recipientId, { userIds: c.userIds, lastMessageId: c.lastMessageId }])),
    );
    for (const r of readStates) state.versions.set(r.streamId, r.version);
    return state;
  }

  /**
   * The newest message of a channel the user received. While subscribed, it
   * is nearly always among the channel's newest messages, which RecentMessages
   * holds for every member at once; below them, or after the subscription
   * ended, a walk down from the newest the channel can hold for them: ids are
   * one counter over every organization, and a walk from the newest id would
   * cross every later organization's messages.
   */
  private async newestReceivedIn(
    realmId: number,
    userId: number,
    streamId: number,
    state: ChannelReadState,
  ): Promise<number> {
    const { intervals } = state;
    if (!intervals.length) return -1;
    let from = intervals[intervals.length - 1]! + 1;
    if (subscribedNow(state)) {
      const tail = await this.recent.of(realmId, streamId);
      for (let i = tail.messages.length - 1; i >= 0; i--) {
        if (receivedWith(tail.messages[i]!, userId, intervals)) return tail.messages[i]!.messageId;
      }
      if (tail.from === 0) return -1;
      from = tail.from;
    }
    return this.messages.newestReceivedIn(realmId, userId, from, { streamId, intervals });
  }

  /** The unread exceptions below their channel's window: what the channel's messages cannot tell of them. */
  private async loadOutside(
    realmId: number,
    states: Map<number, ChannelReadState>,
  ): Promise<Map<number, OutsideMessage>> {
    const wanted: number[] = [];
    for (const [streamId, s] of states) {
      const below = s.exceptions.filter((id) => id <= s.watermark);
      if (!below.length) continue;
      const channel = await this.channels.of(realmId, streamId, s.watermark);
      wanted.push(...below.filter((id) => id <= channel.floor));
    }
    const outside = new Map<number, OutsideMessage>();
    for (let i = 0; i < wanted.length; i += LOAD_CHUNK) {
      for (const m of await this.messages.summaries(realmId, wanted.slice(i, i + LOAD_CHUNK))) {
        if (m.streamId !== null) {
          outside.set(m.messageId, {
            streamId: m.streamId,
            topic: m.topic,
            senderId: m.senderId,
            streamWildcard: m.streamWildcard === true,
          });
        }
      }
    }
    return outside;
  }

  /** The user's unread direct messages, from their rows (a direct message has a row per participant). */
  private async loadDirect(
    realmId: number,
    unreadRows: Array<{ messageId: number; flags: string[] }>,
  ): Promise<UnreadSet> {
    const mentioned = new Set(unreadRows.filter((r) => isMention(r.flags)).map((r) => r.messageId));
    const unread: UnreadMessage[] = [];
    const ids = unreadRows.map((r) => r.messageId);
    for (let i = 0; i < ids.length; i += LOAD_CHUNK) {
      for (const m of await this.messages.summaries(realmId, ids.slice(i, i + LOAD_CHUNK))) {
        if (m.type !== "private") continue;
        unread.push({
          id: m.messageId,
          streamId: null,
          topic: "",
          topicKey: "",
          participants: m.receivers,
          mentioned: mentioned.has(m.messageId),
        });
      }
    }
    return new UnreadSet(unread);
  }

  /**
   * A read state this instance has just stored, held before its flags event
   * comes back (which sets the same): the user's next change here tries it
   * without reading it again (ReadStateRepository.change).
   */
  noteStored(realmId: number, userId: number, written: VersionedReadState): void {
    this.cache.update(`${realmId}:${userId}`, (s) => s.takeStored(written.streamId, written.state, written.version));
  }

  /** A flag change, as the user's clients hear it (update_message_flags), with the read states it stored. */
  private onFlags({ realmId, userIds, event, readStates, streamWildcardIds }: FlagsUpdated): void {
    if (userIds === "all") return;
    const streamWildcards = new Set(streamWildcardIds);
    for (const userId of userIds) {
      this.cache.update(`${realmId}:${userId}`, (s) => {
        if (event.flag !== "read") return s.setStored(event.messages, event.flag, event.op === "add");
        for (const [streamId, { version, ...state }] of Object.entries(readStates ?? {})) {
          s.takeStored(Number(streamId), state, version);
        }
        if (event.all) return s.direct.clear();
        if (event.op === "add") {
          for (const id of event.messages) s.outside.delete(id);
          return s.direct.remove(event.messages);
        }
        for (const [id, d] of Object.entries(event.message_details ?? {})) {
          if (d.type === "stream") {
            // the channel's messages tell the rest; one below its window is remembered here
            s.outside.set(Number(id), {
              streamId: d.stream_id!,
              topic: d.topic ?? "",
              senderId: -1,
              streamWildcard: streamWildcards.has(Number(id)),
            });
            continue;
          }
          s.direct.add({
            id: Number(id),
            streamId: null,
            topic: "",
            topicKey: "",
            participants: [...(d.user_ids ?? []), userId].sort((a, b) => a - b),
            mentioned: d.mentioned === true,
          });
        }
      });
    }
  }

  /**
   * A move to another channel changes read states, which the organization's
   * users load again (a rare change); a move to another topic renames the
   * unread messages below the channel's window (the channel's messages rename
   * the others); an edit's mentions replace the old ones (but an @all
   * mention's, which the message holds).
   */
  private onUpdate({ realmId, userIds, event, flags, contentEdit }: MessageUpdated): void {
    // every subscriber of the new channel, not only those told of the move, had their read state changed
    if (event.new_stream_id !== undefined) return this.cache.dropPrefix(`${realmId}:`);
    const topic = event.subject;
    if (topic !== undefined) {
      for (const userId of userIds)
        this.cache.update(`${realmId}:${userId}`, (s) => s.retopic(event.message_ids, topic));
    }
    if (event.content === undefined) return;
    for (const userId of userIds) {
      this.cache.update(`${realmId}:${userId}`, (s) => {
        const shown = flags[userId] ?? [];
        const userFlags = contentEdit?.streamWildcard ? withoutChannelWildcard(shown) : shown;
        for (const flag of MENTION_FLAGS) s.setStored([event.message_id], flag, userFlags.includes(flag));
        s.direct.setMentioned(event.message_id, isMention(userFlags));
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
      if (event.message_type === "private") this.cache.drop(key);
      else this.cache.update(key, (s) => s.forget(ids));
    }
  }

  /** A subscription opened or closed changes the user's read state there: loaded again. */
  private onSubscription({ realmId, userIds, event }: SubscriptionChanged): void {
    if (userIds === "all" || (event.op !== "add" && event.op !== "remove")) return;
    for (const userId of userIds) this.cache.drop(`${realmId}:${userId}`);
  }

  private onMessage({ realmId, userIds, message, flags, streamWildcard }: MessageSent): void {
    const participants =
      message.type === "private" ? message.display_recipient.map((r) => r.id).sort((a, b) => a - b) : [];
    const conversation =
      message.type === "private" ? { recipientId: message.recipient_id, userIds: participants } : null;
    // every receiver: the flags list only those the message marks (the others have none)
    for (const userId of messagingEvents.receiversOf({ userIds, flags })) {
      const userFlags = flags[userId] ?? [];
      const unread: UnreadMessage | null =
        message.type === "private" && !userFlags.includes("read")
          ? { id: message.id, streamId: null, topic: "", topicKey: "", participants, mentioned: isMention(userFlags) }
          : null;
      this.cache.update(`${realmId}:${userId}`, (s) => {
        // an @all mention is the message's (MessageDoc.streamWildcard), not one of the user's stored flags
        s.note(unread, message.id, streamWildcard ? withoutChannelWildcard(userFlags) : userFlags, conversation);
        if (message.type !== "stream") return;
        // read (or unread) against the default: the exception the send stored (ReadStateRepository.flip)
        const state = s.channels.get(message.stream_id);
        if (!state) return;
        const ref = { id: message.id, senderId: message.sender_id };
        if (isUnread(state, ref, userId) === !userFlags.includes("read")) return;
        if (state.exceptions.includes(message.id)) return;
        s.channels.set(message.stream_id, { ...state, exceptions: [...state.exceptions, message.id] });
        s.versions.delete(message.stream_id);
      });
    }
  }
}
