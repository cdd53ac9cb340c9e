import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { z } from "zod";
import { EventCache, type EventCacheOptions } from "./event-cache";
import type { Audience, EventDefinition } from "./events/define";
import { subscribeEvent, type EventSubscription } from "./events/feed";

/**
 * Reads that nearly every POST /register repeats (an organization's groups or
 * channel folders, a user's navigation views), kept by every instance and
 * dropped when the event of their writes names them: the writer publishes it
 * before replying (see EventCache for why that keeps read-your-writes).
 */
export class EventKeyedCache<V, P extends z.ZodType> {
  private readonly cache: EventCache<V>;
  private readonly subs: EventSubscription[];

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    def: EventDefinition<P>,
    /** the keys an event's payload makes stale */
    staleKeys: (payload: z.output<P>) => string[],
    opts: EventCacheOptions<V>,
  ) {
    this.cache = new EventCache(nc, opts);
    this.subs = [subscribeEvent(nc, def, (payload) => staleKeys(payload).forEach((k) => this.cache.drop(k)), { log })];
  }

  /**
   * Also drops the entries of the users that `def`'s events name: for a
   * per-user list some of whose writes send its owner's clients no event (as
   * in Zulip), and so publish one that is not a client event instead.
   */
  alsoDroppedBy<Q extends z.ZodType<{ realmId: number; userIds: Audience }>>(def: EventDefinition<Q>): this {
    const drop = (payload: z.output<Q>) => audienceKeys(payload).forEach((k) => this.cache.drop(k));
    this.subs.push(subscribeEvent(this.nc, def, drop, { log: this.log }));
    return this;
  }

  /** One list per organization (keyed `${realmId}`), dropped on `def`'s events for the organization. */
  static listsByRealm<T, Q extends z.ZodType<{ realmId: number }>>(
    nc: NatsConnection,
    log: Logger,
    def: EventDefinition<Q>,
    name: string,
    maxItems: number,
  ): EventKeyedCache<T[], Q> {
    return new EventKeyedCache<T[], Q>(nc, log, def, ({ realmId }) => [`${realmId}`], listOptions(name, maxItems));
  }

  /** One list per user (keyed by userKey), dropped on `def`'s events for that user (a client event's audience). */
  static listsByUser<T, Q extends z.ZodType<{ realmId: number; userIds: Audience }>>(
    nc: NatsConnection,
    log: Logger,
    def: EventDefinition<Q>,
    name: string,
    maxItems: number,
  ): EventKeyedCache<T[], Q> {
    return new EventKeyedCache<T[], Q>(nc, log, def, audienceKeys, listOptions(name, maxItems));
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    return this.cache.get(key, load);
  }

  stop(): void {
    this.subs.forEach((sub) => sub.unsubscribe());
  }
}

/** The key of one user's entry in an EventKeyedCache of per-user values. */
export const userKey = (realmId: number, userId: number): string => `${realmId}:${userId}`;

/** The per-user keys a client event's audience makes stale (per-user lists are only ever sent to their owner). */
const audienceKeys = ({ realmId, userIds }: { realmId: number; userIds: Audience }): string[] =>
  userIds === "all" ? [] : userIds.map((userId) => userKey(realmId, userId));

/** A cache of lists holds at most `maxItems` items in all; the least recently used lists go first. */
const listOptions = <T>(name: string, maxItems: number): EventCacheOptions<T[]> => ({
  name,
  maxWeight: maxItems,
  weigh: (list) => list.length + 1,
});
