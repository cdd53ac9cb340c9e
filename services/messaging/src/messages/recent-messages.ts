import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { EventCache, messagingEvents, subscribeEvent, type PayloadOf, type EventSubscription } from "@teamchat/shared";
import { applyReaction } from "./message-reactions";
import { applySubmessage, storedSubmessages } from "./message-submessages";
import { contentFeatures } from "./content-features";
import type { MessageRepository } from "./message.repository";
import type { MessageDoc } from "./message.schema";

/** Messages loaded per channel: the newest page (100) and an anchor's neighbours. */
const TAIL_SIZE = 200;
/** A tail grows with new messages up to this, then forgets its oldest. */
const MAX_TAIL = 400;
/** Messages kept over all channels; the least recently read channels are dropped beyond it. */
const MAX_CACHED_MESSAGES = 20_000;

/** A channel's newest messages: every message of the channel whose id is at least `from`, ascending. */
export class ChannelTail {
  constructor(
    readonly messages: MessageDoc[],
    /** 0: the whole channel */
    public from: number,
  ) {}

  add(m: MessageDoc): void {
    if (m.messageId < this.from) return;
    let i = this.messages.length;
    while (i > 0 && this.messages[i - 1]!.messageId > m.messageId) i--;
    if (this.messages[i - 1]?.messageId === m.messageId) return;
    this.messages.splice(i, 0, m);
    if (this.messages.length > MAX_TAIL) {
      this.messages.splice(0, this.messages.length - TAIL_SIZE);
      this.from = this.messages[0]!.messageId;
    }
  }
}

type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;

/** The stored message a messageSent event describes: the inverse of what POST /messages publishes. */
function storedMessage({ realmId, userIds, message, markdown, streamWildcard }: MessageSent): MessageDoc | null {
  if (message.type !== "stream" || userIds === "all") return null;
  return {
    realmId,
    messageId: message.id,
    senderId: message.sender_id,
    type: "stream",
    recipientId: message.recipient_id,
    streamId: message.stream_id,
    topic: message.subject,
    topicKey: message.subject.toLowerCase(),
    // as stored: its receivers are its channel's subscribers, by their read states (ReceiverCache)
    receivers: [],
    receivedBySubscription: true,
    ...(streamWildcard && { streamWildcard }),
    content: markdown,
    renderedContent: message.content,
    ...contentFeatures(message.content),
    timestamp: message.timestamp,
    client: message.client,
    reactions: [],
    ...storedSubmessages(message),
  };
}

/**
 * Each channel's newest messages, kept in memory: the newest page of a
 * channel or topic narrow, what nearly every client asks first, is read
 * here. Kept current by message, reaction and submessage events (see EventCache).
 */
export class RecentMessages {
  private readonly cache: EventCache<ChannelTail>;
  private readonly subs: EventSubscription[];

  constructor(
    private readonly messages: MessageRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, {
      name: "recent-messages",
      maxWeight: MAX_CACHED_MESSAGES,
      weigh: (t) => t.messages.length,
    });
    // Edits, moves and deletions are rare next to reads: the channels they touch are read again.
    const drop = (realmId: number, streamIds: Array<number | undefined>) =>
      streamIds.forEach((id) => id !== undefined && this.cache.drop(`${realmId}:${id}`));
    // A change to one message (a reaction, a submessage), applied to the copy in its channel's tail.
    const inTail = (
      e: { realmId: number; streamId: number | null; event: { message_id: number } },
      apply: (message: MessageDoc) => void,
    ) => {
      if (e.streamId === null) return;
      this.cache.update(`${e.realmId}:${e.streamId}`, (tail) => {
        const message = tail.messages.find((m) => m.messageId === e.event.message_id);
        if (message) apply(message);
      });
    };
    this.subs = [
      subscribeEvent(
        nc,
        messagingEvents.messageSent,
        (e) => {
          const stored = storedMessage(e);
          if (stored) this.cache.update(`${e.realmId}:${stored.streamId}`, (tail) => tail.add(stored));
        },
        { log },
      ),
      subscribeEvent(nc, messagingEvents.reactionChanged, (e) => inTail(e, (m) => applyReaction(m, e)), { log }),
      subscribeEvent(nc, messagingEvents.submessageAdded, (e) => inTail(e, (m) => applySubmessage(m, e)), { log }),
      subscribeEvent(
        nc,
        messagingEvents.messageUpdated,
        ({ realmId, event }) => drop(realmId, [event.stream_id, event.new_stream_id]),
        { log },
      ),
      subscribeEvent(nc, messagingEvents.messagesDeleted, ({ realmId, event }) => drop(realmId, [event.stream_id]), {
        log,
      }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  of(realmId: number, streamId: number): Promise<ChannelTail> {
    return this.cache.get(`${realmId}:${streamId}`, async () => {
      const newest = await this.messages.walk(realmId, [{ kind: "channel", streamId }], Infinity, -1, TAIL_SIZE);
      const from = newest.length < TAIL_SIZE ? 0 : newest[newest.length - 1]!.messageId;
      return new ChannelTail(newest.reverse(), from);
    });
  }
}
