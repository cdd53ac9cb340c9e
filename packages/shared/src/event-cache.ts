import type { NatsConnection } from "@nats-io/transport-node";
import { EventFeed } from "./events/feed";
import { metricsOf, type Tally } from "./metrics";

interface Loading<V> {
  promise: Promise<V>;
  /** changes heard while loading, applied once the value lands */
  changes: Array<(v: V) => void>;
  /** dropped while loading: the value is handed to the callers already waiting, not kept */
  stale: boolean;
}

export interface EventCacheOptions<V> {
  /** what the cache holds, as its hit ratio is labelled (`teamchat_cache_lookups_total{cache}`) */
  name: string;
  /** what the cache may hold in all, in `weigh`'s units; least recently used entries go first */
  maxWeight: number;
  weigh: (v: V) => number;
}

/**
 * Values an instance keeps in memory, loaded from the database on first use
 * and kept current by the domain events that every instance hears (subscribed
 * without a queue group): the owner of each cache calls update() or drop()
 * from its event handlers.
 *
 * Read-your-writes across instances rests on NATS' ordering: a writer
 * publishes its event before it replies, so any request sent after the reply
 * reaches an instance after that event, and handlers apply events
 * synchronously. Hence a get() after a drop() never joins a load that started
 * before it. A load under way keeps the changes heard meanwhile and applies
 * them when it lands, so changes must be idempotent (the load may have read
 * them already). After a disconnection, until the events missed are replayed
 * (EventFeed), get() reads the database and keeps nothing; if they cannot be
 * replayed, everything is forgotten.
 */
export class EventCache<V> {
  private readonly values = new Map<string, { value: V; weight: number }>();
  private readonly loading = new Map<string, Loading<V>>();
  private weight = 0;
  private readonly hits: Tally;
  private readonly misses: Tally;
  private readonly feed: EventFeed;

  constructor(
    nc: NatsConnection,
    private readonly opts: EventCacheOptions<V>,
  ) {
    const metrics = metricsOf(nc);
    this.hits = metrics.lookupTally(opts.name, "hit");
    this.misses = metrics.lookupTally(opts.name, "miss");
    this.feed = EventFeed.of(nc);
    this.feed.onReset(() => this.clear());
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.feed.current) {
      this.misses.inc();
      return load();
    }
    const hit = this.held(key);
    if (hit) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending && !pending.stale) {
      this.hits.inc();
      return pending.promise;
    }
    this.misses.inc();
    const entry: Loading<V> = { promise: load(), changes: [], stale: false };
    this.loading.set(key, entry);
    entry.promise = entry.promise.then(
      (value) => {
        if (this.loading.get(key) === entry) this.loading.delete(key);
        for (const change of entry.changes) change(value);
        if (!entry.stale) this.keep(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.loading.get(key) === entry) this.loading.delete(key);
        throw err;
      },
    );
    return entry.promise;
  }

  /**
   * The value, when get() would answer it from memory (a load under way is
   * not): without a promise, as a hot path that finds everything held asks
   * many values per request, and on Node 20 each promise pays the
   * AsyncLocalStorage hooks (docs/adr/0063-held-values-without-promises.md).
   */
  held(key: string): { value: V } | undefined {
    if (!this.feed.current) return undefined;
    const hit = this.values.get(key);
    if (!hit) return undefined;
    // most recently used last: eviction starts at the front
    this.values.delete(key);
    this.values.set(key, hit);
    this.hits.inc();
    return hit;
  }

  /**
   * The values of many ids, in their order: those held without a promise each
   * (held()), the rest through get(), all loaded by one call of `load`; an id
   * it does not find gets `absent(id)`, a value of its own, as update() may
   * change it in place. A page asks for hundreds.
   */
  async getMany<K>(
    ids: readonly K[],
    keyOf: (id: K) => string,
    load: (missing: K[]) => Promise<Map<K, V>>,
    absent: (id: K) => V,
  ): Promise<V[]> {
    const values = new Array<V>(ids.length);
    const missing: number[] = [];
    ids.forEach((id, i) => {
      const hit = this.held(keyOf(id));
      if (hit) values[i] = hit.value;
      else missing.push(i);
    });
    if (!missing.length) return values;
    const batch = load(missing.map((i) => ids[i]!));
    // a failure reaches the callers through the loads that use the batch; when loads already under way
    // serve every id, nobody awaits it, and it must not end the process as an unhandled rejection
    batch.catch(() => undefined);
    await Promise.all(
      missing.map(async (i) => {
        const id = ids[i]!;
        values[i] = await this.get(keyOf(id), async () => (await batch).get(id) ?? absent(id));
      }),
    );
    return values;
  }

  /** Whether get() would answer from memory (not counting a load under way). */
  has(key: string): boolean {
    return this.feed.current && this.values.has(key);
  }

  /** Applies an idempotent change to the value, if held or being loaded. */
  update(key: string, change: (v: V) => void): void {
    const hit = this.values.get(key);
    if (hit) {
      change(hit.value);
      const weight = this.opts.weigh(hit.value);
      this.weight += weight - hit.weight;
      hit.weight = weight;
      this.evict(key);
    } else {
      this.loading.get(key)?.changes.push(change);
    }
  }

  /** Forgets a value: the next get() loads it again. */
  drop(key: string): void {
    const hit = this.values.get(key);
    if (hit) {
      this.values.delete(key);
      this.weight -= hit.weight;
    }
    const pending = this.loading.get(key);
    if (pending) pending.stale = true;
  }

  /** Forgets the values whose key starts with `prefix`. */
  dropPrefix(prefix: string): void {
    for (const key of [...this.values.keys(), ...this.loading.keys()]) if (key.startsWith(prefix)) this.drop(key);
  }

  clear(): void {
    for (const key of [...this.values.keys(), ...this.loading.keys()]) this.drop(key);
  }

  private keep(key: string, value: V): void {
    const weight = this.opts.weigh(value);
    this.values.set(key, { value, weight });
    this.weight += weight;
    this.evict(key);
  }

  private evict(keep: string): void {
    for (const [key, { weight }] of this.values) {
      if (this.weight <= this.opts.maxWeight) return;
      if (key === keep) continue;
      this.values.delete(key);
      this.weight -= weight;
    }
  }
}
