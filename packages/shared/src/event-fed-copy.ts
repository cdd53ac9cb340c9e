import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Connection } from "mongoose";
import type { Logger } from "pino";
import { setTimeout as sleep } from "node:timers/promises";
import { onlyDuplicateKeys } from "./db";
import { consumeDurably, DOMAIN_EVENTS_STREAM, type DurableConsumer, type DurableHandler } from "./events/stream";
import { streamManager, streamWhenLed } from "./jetstream";

/** One copied fact: the value its last event gave it, and that event's place in the stream. */
interface CopiedFact {
  /** `${realmId}/${scope}/${name}` */
  _id: string;
  realmId: number;
  /** what the fact is about, e.g. `channel:12` */
  scope: string;
  name: string;
  value: unknown;
  version: number;
}

/** How often a read looks whether the copy has caught up with the stream. */
const CATCH_UP_POLL_MS = 5;
/** A read whose copy stays behind this long fails rather than answer from stale facts. */
const CATCH_UP_DEADLINE_MS = 10_000;

/** One kind of event a copy applies, through its own durable consumer (one filter subject each, as NATS 2.9 allows). */
export interface CopyFeed extends DurableHandler {
  consumer: DurableConsumer;
}

/**
 * A service's own copy of the little it needs of another service's data, so
 * that it checks without asking the owner (docs/architecture.md: a service
 * calls only services below it). The owner's domain events reach it through
 * the copy's durable consumers (one instance applies each event, in any
 * order) and are kept in the copier's database, so the copy survives restarts
 * and takes the events published while it was down.
 *
 * Each fact keeps the stream sequence of the event that set it, and an event
 * changes a fact only when it is later than that: the consumers' instances
 * may apply events in any order, twice, and an owner's backfill (every fact
 * as its database held it at a stream sequence, for data older than the copy)
 * never overwrites what a later event said.
 *
 * Reads wait until the consumers have applied every event the stream held
 * when they were asked: an owner's events are stored before it replies, so a
 * request sent after that reply sees the change, as with asking the owner.
 */
export class EventFedCopy {
  private readonly facts;
  private consumers: DurableConsumer[] = [];
  private jsm: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    db: Connection,
    /** the collection it is kept in */
    name: string,
  ) {
    this.facts = db.collection<CopiedFact>(name);
  }

  /** Makes the collection's index and starts applying the feeds' events. */
  async start(feeds: CopyFeed[], log: Logger): Promise<{ stop(): Promise<void> }> {
    await this.facts.createIndex({ realmId: 1, scope: 1 });
    this.consumers = feeds.map((f) => f.consumer);
    const running = await Promise.all(
      feeds.map((feed) => consumeDurably(this.nc, feed.consumer, new Map([[feed.def.subject, feed]]), log)),
    );
    return { stop: async () => void (await Promise.all(running.map((c) => c.stop()))) };
  }

  /** Sets facts of one scope as of `version` (the event's stream sequence); a fact a later event set keeps its value. */
  async set(realmId: number, scope: string, values: Record<string, unknown>, version: number): Promise<void> {
    const writes = Object.entries(values).map(([name, value]) => ({
      updateOne: {
        filter: { _id: `${realmId}/${scope}/${name}`, version: { $lt: version } },
        update: { $set: { realmId, scope, name, value, version } },
        upsert: true,
      },
    }));
    if (writes.length === 0) return;
    try {
      await this.facts.bulkWrite(writes, { ordered: false });
    } catch (err) {
      // a duplicate key is a fact a later event already set
      if (!onlyDuplicateKeys(err)) throw err;
    }
  }

  /** The organization's facts (of the given scopes, or of all), by scope then name, once the copy has caught up. */
  async read(realmId: number, scopes?: string[]): Promise<Map<string, Record<string, unknown>>> {
    await Promise.all(this.consumers.map((c) => this.caughtUp(c)));
    const found = await this.facts
      .find(scopes === undefined ? { realmId } : { realmId, scope: { $in: scopes } })
      .toArray();
    const byScope = new Map<string, Record<string, unknown>>();
    for (const fact of found) {
      let values = byScope.get(fact.scope);
      if (!values) byScope.set(fact.scope, (values = {}));
      values[fact.name] = fact.value;
    }
    return byScope;
  }

  /**
   * Waits until the consumer has acknowledged the last event of its subject
   * the stream held when asked (its acknowledgement floor: every event up to
   * it applied). Both figures come from the leaders of the stream and of the
   * consumer, so a replica that lags behind cannot make it pass early.
   */
  private async caughtUp(consumer: DurableConsumer): Promise<void> {
    const jsm = await (this.jsm ??= streamManager(this.nc));
    const last = await jsm.streams.getMessage(DOMAIN_EVENTS_STREAM, { last_by_subj: consumer.subjects });
    if (!last) return;
    const deadline = Date.now() + CATCH_UP_DEADLINE_MS;
    while ((await jsm.consumers.info(DOMAIN_EVENTS_STREAM, consumer.name)).ack_floor.stream_seq < last.seq) {
      if (Date.now() > deadline)
        throw new Error(`${consumer.name} has not applied the domain events up to ${last.seq}`);
      await sleep(CATCH_UP_POLL_MS);
    }
  }
}

/**
 * Records per backfill event: an organization's subscriptions in one event would
 * pass NATS' default 1 MB message limit at some tens of thousands of rows.
 */
const BACKFILL_BATCH = 1_000;

/**
 * The owner's side of a copy made after its data: once per deployment (a
 * marker in the owner's database), every record `everyRealm` reads is handed
 * to `publish` by organization, at most `batch` at a time, with `asOf`, the
 * domain events' stream's last sequence before the read. Every event up to
 * `asOf` was published after its write, so the records read include it; later
 * events carry later sequences, so the copies keep what they say. Each record
 * is a fact of its own, so a copy applies the batches in any order.
 */
export async function backfillCopiesOnce<T extends { realmId: number }>(
  deps: { nc: NatsConnection; db: Connection; log: Logger },
  name: string,
  everyRealm: () => Promise<T[]>,
  publish: (realmId: number, records: T[], asOf: number) => Promise<void>,
  batch = BACKFILL_BATCH,
): Promise<void> {
  const markers = deps.db.collection<{ _id: string; at: Date }>("event_copy_backfills");
  if (await markers.findOne({ _id: name })) return;
  const info = await streamWhenLed(await streamManager(deps.nc), DOMAIN_EVENTS_STREAM);
  const asOf = info?.state.last_seq ?? 0;
  const byRealm = new Map<number, T[]>();
  for (const record of await everyRealm()) {
    const records = byRealm.get(record.realmId);
    if (records) records.push(record);
    else byRealm.set(record.realmId, [record]);
  }
  for (const [realmId, records] of byRealm) {
    for (let i = 0; i < records.length; i += batch) await publish(realmId, records.slice(i, i + batch), asOf);
  }
  await markers.updateOne({ _id: name }, { $set: { at: new Date() } }, { upsert: true });
  deps.log.info({ backfill: name, asOf, organizations: byRealm.size }, "copies of this service's data backfilled");
}
