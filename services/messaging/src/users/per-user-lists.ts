import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { z } from "zod";
import {
  EventCache,
  subscribeEvent,
  type Audience,
  type EventDefinition,
  type EventSubscription,
} from "@teamchat/shared";

/** An event that carries a user's whole list (Zulip's alert_words, muted_users): the change replaces it. */
type ListEvent<E> = EventDefinition<z.ZodType<{ realmId: number; userIds: Audience; event: E }>>;

/** Organizations' lists kept in memory, counted in entries; the least recently used organizations go first. */
const MAX_CACHED_ENTRIES = 100_000;

/**
 * Every user's list of one kind in an organization (alert words, muted
 * users), kept in memory per organization: the send path reads every
 * recipient's list with no database read. Loaded on first use (one read of the
 * organization's rows) and kept current by the event the writer publishes
 * with the user's whole new list (see EventCache).
 */
export class PerUserLists<T, E> {
  private readonly cache: EventCache<Map<number, T[]>>;
  private readonly sub: EventSubscription;

  constructor(
    nc: NatsConnection,
    log: Logger,
    event: ListEvent<E>,
    private readonly load: (realmId: number) => Promise<Map<number, T[]>>,
    listOf: (event: E) => T[],
  ) {
    this.cache = new EventCache(nc, {
      // the list's kind: alert_words, muted_users
      name: event.subject.slice(event.subject.lastIndexOf(".") + 1),
      maxWeight: MAX_CACHED_ENTRIES,
      weigh: (lists) => [...lists.values()].reduce((n, list) => n + list.length, 1),
    });
    this.sub = subscribeEvent(
      nc,
      event,
      ({ realmId, userIds, event: e }) => {
        if (userIds === "all") return;
        const list = listOf(e);
        for (const userId of userIds) this.cache.update(String(realmId), (lists) => lists.set(userId, list));
      },
      { log },
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** Each user's list, for users who have any. */
  of(realmId: number): Promise<ReadonlyMap<number, readonly T[]>> {
    return this.cache.get(String(realmId), () => this.load(realmId));
  }

  async ofUser(realmId: number, userId: number): Promise<readonly T[]> {
    return (await this.of(realmId)).get(userId) ?? [];
  }
}
