import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { messagingEvents, subscribeEvent, type PayloadOf } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
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
/** Unread messages kept in memory over all users; the least recently used users are dropped beyond it. */
const MAX_CACHED_MESSAGES = 200_000;
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

  messages(): UnreadMessage[] {
    return this.ids.map((id) => this.byId.get(id)!);
  }

  /** false when it was there already */
  add(m: UnreadMessage): boolean {
    if (this.byId.has(m.id)) return false;
    this.byId.set(m.id, m);
    // New messages come in id order; an older one (an event overtaken by another) is placed by search.
    let i = this.ids.length;
    while (i > 0 && this.ids[i - 1]! > m.id) i--;
    this.ids.splice(i, 0, m.id);
    return true;
  }
}

const isMention = (flags: string[]) => flags.includes("mentioned") || flags.includes("wildcard_mentioned");

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;

/**
 * Each user's unread messages, kept in memory: first_unread anchors, is:unread
 * narrows and register's unread_msgs read them here instead of a user's rows.
 * Loaded from the database on first use; kept current by the message events
 * every instance hears (no queue group), so a message sent through any
 * instance is in every instance's copy before the sender's reply is back:
 * NATS delivers the event, published before the reply, ahead of any request
 * that follows the reply.
 */
export class UnreadIndex {
  private readonly sets = new Map<string, UnreadSet>();
  /** loads under way, with the messages that arrived meanwhile */
  private readonly loading = new Map<string, { promise: Promise<UnreadSet>; arrived: UnreadMessage[] }>();
  private cached = 0;
  private readonly sub: Subscription;

  constructor(
    private readonly messages: MessageRepository,
    private readonly userMessages: UserMessageRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.sub = subscribeEvent(nc, messagingEvents.messageSent, (e) => this.onMessage(e), { log });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The user's unread messages. */
  of(realmId: number, userId: number): Promise<UnreadSet> {
    const key = `${realmId}:${userId}`;
    const set = this.sets.get(key);
    if (set) {
      // most recently used last: eviction takes from the front
      this.sets.delete(key);
      this.sets.set(key, set);
      return Promise.resolve(set);
    }
    const pending = this.loading.get(key);
    if (pending) return pending.promise;
    const load = { promise: this.load(realmId, userId), arrived: [] as UnreadMessage[] };
    this.loading.set(key, load);
    load.promise = load.promise.then(
      (loaded) => {
        this.loading.delete(key);
        for (const m of load.arrived) loaded.add(m);
        this.keep(key, loaded);
        return loaded;
      },
      (err: unknown) => {
        this.loading.delete(key);
        throw err;
      },
    );
    return load.promise;
  }

  private async load(realmId: number, userId: number): Promise<UnreadSet> {
    const rows = (await this.userMessages.unreadOf(realmId, userId)).sort((a, b) => a.messageId - b.messageId);
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

  private keep(key: string, set: UnreadSet): void {
    this.sets.set(key, set);
    this.cached += set.size;
    for (const [oldest, s] of this.sets) {
      if (this.cached <= MAX_CACHED_MESSAGES || oldest === key) break;
      this.sets.delete(oldest);
      this.cached -= s.size;
    }
  }

  private onMessage({ realmId, message, flags }: MessageSent): void {
    for (const [user, userFlags] of Object.entries(flags)) {
      if (userFlags.includes("read")) continue;
      const unread: UnreadMessage =
        message.type === "stream"
          ? {
              id: message.id,
              streamId: message.stream_id,
              topic: message.subject,
              topicKey: message.subject.toLowerCase(),
              participants: [],
              mentioned: isMention(userFlags),
            }
          : {
              id: message.id,
              streamId: null,
              topic: "",
              topicKey: "",
              participants: message.display_recipient.map((r) => r.id).sort((a, b) => a - b),
              mentioned: isMention(userFlags),
            };
      const key = `${realmId}:${user}`;
      const set = this.sets.get(key);
      if (set) {
        if (set.add(unread)) this.cached++;
      } else {
        this.loading.get(key)?.arrived.push(unread);
      }
    }
  }
}
