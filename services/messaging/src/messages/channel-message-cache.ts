import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, messagingEvents, subscribeEvent, type EventSubscription, type PayloadOf } from "@teamchat/shared";
import { indexOf, type ChannelMessageRef } from "../user-messages/read-state";
import type { MessageRepository } from "./message.repository";
import type { ChannelRunRepository } from "./channel-run.repository";
import type { ChannelEntry } from "./channel-run.schema";

/** Zulip's MAX_UNREAD_MESSAGES: the newest this many unread are listed; older ones are old_unreads_missing. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** No channel needs more of its history in memory than a user is ever listed of their unread. */
const CHANNEL_WINDOW = MAX_UNREAD_MESSAGES;
/** Channel messages kept in memory over all channels; the least recently used channels go first. */
const MAX_CACHED_ENTRIES = 2_000_000;

/**
 * A channel's messages above `floor` (at most CHANNEL_WINDOW, the newest),
 * ascending by id, as read state and unread_msgs need them: one copy per
 * channel, shared by all its members, instead of a row per member and
 * message. It holds what its members' watermarks need, loaded further back
 * when a member's watermark is lower (ChannelMessageCache.of).
 */
export class ChannelMessages {
  ids: number[] = [];
  senders: number[] = [];
  topics: string[] = [];
  /** the held ids whose message mentions its whole channel (MessageDoc.streamWildcard) */
  private readonly wildcards = new Set<number>();

  constructor(
    entries: ChannelEntry[],
    /** messages at or below it are not held */
    public floor: number,
  ) {
    this.prepend(entries);
  }

  /** Adds the messages between `floor` and the current floor (`entries` may hold more). */
  extend(entries: ChannelEntry[], floor: number): void {
    const held = this.floor;
    if (floor >= held) return;
    this.floor = floor;
    this.prepend(entries.filter((e) => e.messageId > floor && e.messageId <= held));
  }

  /** Adds messages older than every one held, keeping the newest CHANNEL_WINDOW. */
  private prepend(entries: ChannelEntry[]): void {
    const older = [...entries].sort((a, b) => a.messageId - b.messageId);
    this.ids = [...older.map((e) => e.messageId), ...this.ids];
    this.senders = [...older.map((e) => e.senderId), ...this.senders];
    this.topics = [...older.map((e) => e.topic), ...this.topics];
    for (const e of older) if (e.streamWildcard) this.wildcards.add(e.messageId);
    const extra = this.ids.length - CHANNEL_WINDOW;
    if (extra <= 0) return;
    this.floor = this.ids[extra - 1]!;
    for (const id of this.wildcards) if (id <= this.floor) this.wildcards.delete(id);
    this.ids = this.ids.slice(extra);
    this.senders = this.senders.slice(extra);
    this.topics = this.topics.slice(extra);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Whether message `id` is one of the channel's held messages. */
  has(id: number): boolean {
    return indexOf(this.ids, id) >= 0;
  }

  /** Whether held message `id` mentions its whole channel: its receivers have CHANNEL_WILDCARD_FLAGS. */
  mentionsChannel(id: number): boolean {
    return this.wildcards.size > 0 && this.wildcards.has(id);
  }

  /** A held message's channel-wide wildcard mention after a content edit. */
  setWildcard(id: number, on: boolean): void {
    if (!this.has(id)) return;
    if (on) this.wildcards.add(id);
    else this.wildcards.delete(id);
  }

  topicOf(id: number): string | undefined {
    const i = indexOf(this.ids, id);
    return i < 0 ? undefined : this.topics[i];
  }

  /**
   * Every message above `watermark`, ascending, when all are held; none when
   * some are not (a read state's watermark then moves over nothing: it must
   * not pass a message it cannot see).
   */
  allAbove(watermark: number): ChannelMessageRef[] {
    return watermark >= this.floor ? this.above(watermark) : [];
  }

  /** The held messages above `id`, ascending. */
  above(id: number): ChannelMessageRef[] {
    const refs: ChannelMessageRef[] = [];
    for (let i = this.firstAbove(id); i < this.ids.length; i++)
      refs.push({ id: this.ids[i]!, senderId: this.senders[i]! });
    return refs;
  }

  /** The position of the first held id above `id`. */
  private firstAbove(id: number): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! <= id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The held ids above `after` and below `before`, ascending, of one topic
   * (by its key, Zulip's case-insensitive match) and one sender when given.
   */
  between(after: number, before: number, only: { topicKey?: string; senderId?: number } = {}): number[] {
    const ids: number[] = [];
    for (let i = this.firstAbove(after); i < this.ids.length; i++) {
      const id = this.ids[i]!;
      if (id >= before) break;
      if (only.topicKey !== undefined && this.topics[i]!.toLowerCase() !== only.topicKey) continue;
      if (only.senderId !== undefined && this.senders[i] !== only.senderId) continue;
      ids.push(id);
    }
    return ids;
  }

  add({ messageId: id, senderId, topic, streamWildcard }: ChannelEntry): void {
    if (id <= this.floor || this.has(id)) return;
    // new messages come in id order; an older one (moved in, or an event overtaken) is placed by search
    let i = this.ids.length;
    while (i > 0 && this.ids[i - 1]! > id) i--;
    this.ids.splice(i, 0, id);
    this.senders.splice(i, 0, senderId);
    this.topics.splice(i, 0, topic);
    if (streamWildcard) this.wildcards.add(id);
    if (this.ids.length > CHANNEL_WINDOW) {
      this.floor = this.ids[0]!;
      this.wildcards.delete(this.floor);
      this.ids.shift();
      this.senders.shift();
      this.topics.shift();
    }
  }

  remove(ids: Iterable<number>): void {
    for (const id of ids) {
      const i = indexOf(this.ids, id);
      if (i < 0) continue;
      for (const list of [this.ids, this.senders, this.topics]) list.splice(i, 1);
      this.wildcards.delete(id);
    }
  }

  retopic(ids: Iterable<number>, topic: string): void {
    for (const id of ids) {
      const i = indexOf(this.ids, id);
      if (i >= 0) this.topics[i] = topic;
    }
  }
}

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
type MessageUpdated = PayloadOf<typeof messagingEvents.messageUpdated>;
type MessagesDeleted = PayloadOf<typeof messagingEvents.messagesDeleted>;

/**
 * Every active channel's ChannelMessages, loaded on first use by one range
 * read of the channel's newest messages and kept current by message events
 * (EventCache): a restart costs one read per active channel, however many
 * members and unread messages it has.
 */
export class ChannelMessageCache {
  private readonly cache: EventCache<ChannelMessages>;
  private readonly subs: EventSubscription[];

  constructor(
    private readonly messages: MessageRepository,
    private readonly runs: ChannelRunRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, {
      name: "channel-messages",
      maxWeight: MAX_CACHED_ENTRIES,
      weigh: (c) => c.size + 1,
    });
    this.subs = [
      subscribeEvent(nc, messagingEvents.messageSent, (e) => this.onMessage(e), { log }),
      subscribeEvent(nc, messagingEvents.messageUpdated, (e) => this.onUpdate(e), { log }),
      subscribeEvent(nc, messagingEvents.messagesDeleted, (e) => this.onDelete(e), { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  /**
   * The channel's messages if this instance holds them, every one above `from`
   * included, without loading them: for reads that go faster with them but do
   * not need them, and for readers of many channels, without a promise each.
   */
  held(realmId: number, streamId: number, from = Infinity): ChannelMessages | null {
    const channel = this.cache.held(`${realmId}:${streamId}`)?.value;
    return channel && (from >= channel.floor || channel.size >= CHANNEL_WINDOW) ? channel : null;
  }

  /**
   * The channel's messages, holding every one above `from` (up to the window):
   * first loaded by one range read above it, then further back when a member
   * whose watermark is lower asks. A member whose read state is recent costs
   * the channel only the messages above it.
   */
  async of(realmId: number, streamId: number, from: number): Promise<ChannelMessages> {
    const key = `${realmId}:${streamId}`;
    const channel = await this.cache.get(
      key,
      async () => new ChannelMessages(await this.entries(realmId, streamId, from, Infinity), from),
    );
    if (from < channel.floor && channel.size < CHANNEL_WINDOW) {
      const floor = channel.floor;
      channel.extend(await this.entries(realmId, streamId, from, floor), from);
      this.cache.update(key, () => undefined);
    }
    return channel;
  }

  /**
   * The channel's messages above `from` up to `to`: from its runs, and from
   * the messages where the runs do not reach (a channel older than the runs),
   * then kept in runs so that the next load reads the runs alone.
   */
  private async entries(realmId: number, streamId: number, from: number, to: number): Promise<ChannelEntry[]> {
    const { entries, coveredAbove } = await this.runs.above(realmId, streamId, from);
    if (coveredAbove > from) {
      const older = await this.messages.channelEntries(realmId, streamId, from, coveredAbove);
      await this.runs.store(realmId, streamId, from, older);
      entries.push(...older);
    }
    // two loads that stored the same messages at once leave them in two runs
    const byId = new Map(entries.filter((e) => e.messageId <= to).map((e) => [e.messageId, e]));
    return [...byId.values()];
  }

  private onMessage({ realmId, message, streamWildcard }: MessageSent): void {
    if (message.type !== "stream") return;
    const entry = { messageId: message.id, senderId: message.sender_id, topic: message.subject };
    this.cache.update(`${realmId}:${message.stream_id}`, (c) =>
      c.add(streamWildcard ? { ...entry, streamWildcard } : entry),
    );
  }

  /**
   * A move within a channel renames its messages' topic; a move to another
   * channel loads both again. A content edit may add or remove a channel-wide
   * wildcard mention.
   */
  private onUpdate({ realmId, event, contentEdit }: MessageUpdated): void {
    if (event.stream_id === undefined) return;
    const key = `${realmId}:${event.stream_id}`;
    if (event.new_stream_id !== undefined) {
      this.cache.drop(key);
      this.cache.drop(`${realmId}:${event.new_stream_id}`);
      return;
    }
    if (event.subject !== undefined) {
      const topic = event.subject;
      this.cache.update(key, (c) => c.retopic(event.message_ids, topic));
    }
    if (contentEdit) {
      this.cache.update(key, (c) => c.setWildcard(event.message_id, contentEdit.streamWildcard === true));
    }
  }

  private onDelete({ realmId, event }: MessagesDeleted): void {
    if (event.message_type !== "stream" || event.stream_id === undefined) return;
    const ids = event.message_ids ?? [];
    this.cache.update(`${realmId}:${event.stream_id}`, (c) => c.remove(ids));
  }
}
