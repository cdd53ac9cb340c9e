import type { NatsConnection } from "@nats-io/transport-node";
import {
  EventCache,
  messagingEvents,
  subscribeEvent,
  type EventSubscription,
  type Logger,
  type PayloadOf,
} from "@teamchat/shared";
import type { MessageDoc } from "../messages/message.schema";
import { inIntervals } from "./read-state";
import type { ReadStateRepository } from "./read-state.repository";

/** What deciding who received a message reads of it. */
export type ReceivedMessage = Pick<MessageDoc, "messageId" | "streamId" | "receivers" | "receivedBySubscription">;

/** Subscription intervals (ChannelReadState.intervals) per user, of every user who was ever subscribed to a channel. */
type ChannelIntervals = Map<number, readonly number[]>;

/** Channels' intervals kept, in users' intervals: a few hundred bytes per member of a large channel. */
const MAX_CACHED_MEMBERS = 200_000;

/**
 * Whether the user received the message, given their intervals in its
 * channel: a stored receiver, or, for a message received by subscription,
 * subscribed when it was sent.
 */
export function receivedWith(m: ReceivedMessage, userId: number, intervals: readonly number[] | undefined): boolean {
  return m.receivedBySubscription ? inIntervals(intervals, m.messageId) : m.receivers.includes(userId);
}

type SubscriptionChanged = PayloadOf<typeof messagingEvents.subscriptionChanged>;

/**
 * Who received a message: its stored receivers, or, for a channel message
 * received by subscription (MessageDoc.receivedBySubscription), the users
 * whose read state's subscription intervals hold it. Each channel's intervals
 * are read once, in one query of the channel's read states, shared by every
 * request about its messages, and dropped when a subscription to it opens or
 * closes (an interval only changes above the newest message id, so what an
 * older message's receivers are never changes).
 */
export class ReceiverCache {
  private readonly cache: EventCache<ChannelIntervals>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly readStates: ReadStateRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "receivers", maxWeight: MAX_CACHED_MEMBERS, weigh: (c) => c.size + 1 });
    this.sub = subscribeEvent(nc, messagingEvents.subscriptionChanged, (e) => this.onSubscription(e), { log });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The message's receivers, ascending. */
  async receiversOf(realmId: number, m: ReceivedMessage): Promise<number[]> {
    if (!m.receivedBySubscription || m.streamId === null) return m.receivers;
    const members = await this.intervalsOf(realmId, m.streamId);
    const ids: number[] = [];
    for (const [userId, intervals] of members) if (inIntervals(intervals, m.messageId)) ids.push(userId);
    return ids.sort((a, b) => a - b);
  }

  /** Whether the user received the message. */
  async received(realmId: number, m: ReceivedMessage, userId: number): Promise<boolean> {
    const intervals =
      m.receivedBySubscription && m.streamId !== null
        ? (await this.intervalsOf(realmId, m.streamId)).get(userId)
        : undefined;
    return receivedWith(m, userId, intervals);
  }

  private intervalsOf(realmId: number, streamId: number): Promise<ChannelIntervals> {
    return this.cache.get(`${realmId}:${streamId}`, async () => this.readStates.intervalsIn(realmId, streamId));
  }

  private onSubscription({ realmId, event }: SubscriptionChanged): void {
    if (event.op !== "add" && event.op !== "remove") return;
    for (const s of event.subscriptions) this.cache.drop(`${realmId}:${s.stream_id}`);
  }
}
