import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  messagingEvents,
  subscribeEvent,
  type EventPublisher,
  type EventSubscription,
} from "@teamchat/shared";
import type { SubscriptionPair, SubscriptionRepository } from "./subscription.repository";
import type { SubscriptionDoc, SubscriptionSettings } from "./subscription.schema";

/** Subscription rows and subscriber ids kept in memory, over all users and channels. */
const MAX_CACHED_ROWS = 200_000;

/**
 * Users' subscriptions and channels' subscribers, read by every send, fetch
 * and register: kept in memory per user and per channel, and forgotten by
 * every instance on `subscriptionsChanged`, which each write here publishes
 * before its caller replies (see EventCache).
 */
export class SubscriptionDirectory {
  private readonly ofUsers: EventCache<SubscriptionDoc[]>;
  private readonly ofChannels: EventCache<number[]>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly events: EventPublisher<"messaging">,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.ofUsers = new EventCache(nc, {
      name: "subscriptions-of-users",
      maxWeight: MAX_CACHED_ROWS / 2,
      weigh: (rows) => rows.length + 1,
    });
    this.ofChannels = new EventCache(nc, {
      name: "subscribers-of-channels",
      maxWeight: MAX_CACHED_ROWS / 2,
      weigh: (ids) => ids.length + 1,
    });
    this.sub = subscribeEvent(
      nc,
      messagingEvents.subscriptionsChanged,
      ({ realmId, userIds, streamIds }) => {
        for (const id of userIds) this.ofUsers.drop(`${realmId}:${id}`);
        for (const id of streamIds) this.ofChannels.drop(`${realmId}:${id}`);
      },
      { log },
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The user's subscription rows, former ones (inactive) included. */
  ofUser(realmId: number, userId: number): Promise<SubscriptionDoc[]> {
    return this.ofUsers.get(`${realmId}:${userId}`, () => this.subscriptions.ofUser(realmId, userId));
  }

  /** The channels the user is subscribed to now. */
  async subscribedStreamIds(realmId: number, userId: number): Promise<Set<number>> {
    return new Set((await this.ofUser(realmId, userId)).filter((s) => s.active).map((s) => s.streamId));
  }

  async isSubscribed(realmId: number, userId: number, streamId: number): Promise<boolean> {
    return (await this.ofUser(realmId, userId)).some((s) => s.streamId === streamId && s.active);
  }

  /** The channel's active subscribers, ascending. */
  subscriberIds(realmId: number, streamId: number): Promise<number[]> {
    return this.ofChannels.get(`${realmId}:${streamId}`, () => this.subscriptions.subscriberIds(realmId, streamId));
  }

  /** Active subscriber ids per channel, for several channels at once (those not in memory read together). */
  async subscribersByChannel(realmId: number, streamIds: number[]): Promise<Map<number, number[]>> {
    const lists = await this.ofChannels.getMany(
      streamIds,
      (id) => `${realmId}:${id}`,
      (missing) => this.subscriptions.subscribersByChannel(realmId, missing),
      () => [],
    );
    return new Map(streamIds.map((id, i) => [id, lists[i]!]));
  }

  /** Subscribes each user to each channel; returns the pairs that were new. */
  async add(realmId: number, pairs: SubscriptionPair[]): Promise<SubscriptionDoc[]> {
    const added = await this.subscriptions.add(realmId, pairs);
    this.changed(realmId, added);
    this.publishFacts(realmId, true, added);
    return added;
  }

  /** Unsubscribes each user from each channel; returns the rows that were active. */
  async remove(realmId: number, pairs: Array<{ userId: number; streamId: number }>): Promise<SubscriptionDoc[]> {
    const removed = await this.subscriptions.remove(realmId, pairs);
    this.changed(realmId, removed);
    this.publishFacts(realmId, false, removed);
    return removed;
  }

  /** Tells the copies other services keep of subscriptions (identity's) which pairs changed. */
  private publishFacts(realmId: number, subscribed: boolean, rows: Array<{ userId: number; streamId: number }>): void {
    if (rows.length === 0) return;
    const pairs = rows.map((r) => ({ user_id: r.userId, stream_id: r.streamId }));
    this.events.publish(messagingEvents.subscriptionFacts, { realmId, subscribed, pairs });
  }

  /** Changes personal settings of the user's subscription. */
  async setSettings(
    realmId: number,
    userId: number,
    streamId: number,
    settings: Partial<SubscriptionSettings>,
  ): Promise<void> {
    await this.subscriptions.setSettings(realmId, userId, streamId, settings);
    this.changed(realmId, [{ userId, streamId }]);
  }

  /**
   * Every instance forgets these users' subscriptions and these channels'
   * subscribers; this one at once, as the rest of the request that wrote may
   * read them before the event comes back.
   */
  private changed(realmId: number, rows: Array<{ userId: number; streamId: number }>): void {
    if (!rows.length) return;
    const userIds = [...new Set(rows.map((s) => s.userId))];
    const streamIds = [...new Set(rows.map((s) => s.streamId))];
    for (const id of userIds) this.ofUsers.drop(`${realmId}:${id}`);
    for (const id of streamIds) this.ofChannels.drop(`${realmId}:${id}`);
    this.events.publish(messagingEvents.subscriptionsChanged, { realmId, userIds, streamIds });
  }
}
