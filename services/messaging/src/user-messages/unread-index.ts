import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, messagingEvents, subscribeEvent, type PayloadOf } from "@teamchat/shared";
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

  add(m: UnreadMessage): void {
    if (this.byId.has(m.id)) return;
    this.byId.set(m.id, m);
    // New messages come in id order; an older one (an event overtaken by another) is placed by search.
    let i = this.ids.length;
    while (i > 0 && this.ids[i - 1]! > m.id) i--;
    this.ids.splice(i, 0, m.id);
  }
}

const isMention = (flags: string[]) => flags.includes("mentioned") || flags.includes("wildcard_mentioned");

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;

/**
 * Each user's unread messages, kept in memory: first_unread anchors, is:unread
 * narrows and register's unread_msgs read them here instead of a user's rows.
 * Loaded from the rows marked unread on first use; kept current by message
 * events (see EventCache for why a message sent through any instance is in
 * every instance's copy by the sender's next request).
 */
export class UnreadIndex {
  private readonly cache: EventCache<UnreadSet>;
  private readonly sub: Subscription;

  constructor(
    private readonly messages: MessageRepository,
    private readonly userMessages: UserMessageRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { maxWeight: MAX_CACHED_MESSAGES, weigh: (set) => set.size });
    this.sub = subscribeEvent(nc, messagingEvents.messageSent, (e) => this.onMessage(e), { log });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The user's unread messages. */
  of(realmId: number, userId: number): Promise<UnreadSet> {
    return this.cache.get(`${realmId}:${userId}`, () => this.load(realmId, userId));
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
      this.cache.update(`${realmId}:${user}`, (set) => set.add(unread));
    }
  }
}
