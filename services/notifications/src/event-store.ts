import { headers, type NatsConnection } from "@nats-io/transport-node";
import {
  jetstream,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StoredMsg,
} from "@nats-io/jetstream";
import {
  EventCache,
  ZulipError,
  badRequest,
  ensureStream,
  isWrongLastSequence,
  notifications,
  notificationsEvents,
  publishNotificationWork,
  subscribeEvent,
  type Audience,
  type EventPublisher,
  type Logger,
  type EventSubscription,
  streamManager,
} from "@teamchat/shared";
import { AcknowledgedEvents } from "./acknowledged-events";
import type { EventQueueDoc } from "./event-queues/event-queue.schema";
import type { EventQueueRepository } from "./event-queues/event-queue.repository";

/** A queued event as the stream holds it: its id, and its JSON text (without the id). */
export interface StoredEvent {
  id: number;
  json: string;
}

/** The JetStream stream holding every queue's events, one subject per queue. */
const STREAM = "EVENT_QUEUES";
/** On a message event: the sequence of the domain event it was made of (DOMAIN_EVENTS), which the client never sees. */
const ORIGIN_HEADER = "Domain-Event-Seq";
export const subjectOf = (queueId: string) => `evq.${queueId}`;
/** Queue documents kept in memory, by id (GET /events reads its queue on every poll) and by organization (fan-out). */
const MAX_CACHED_QUEUES = 100_000;
/** Removed queues' ids remembered, so that a creation heard after its removal is not taken back in. */
const REMEMBERED_REMOVALS = 10_000;
/**
 * A visit is written to the queue document (its expiry, what was acknowledged)
 * only when 30–70 % of the queue's life has passed since the last write (isVisitWritten): a poll per
 * event would otherwise be a database write per event. So an id older than the
 * last write's is refused as pruned (Zulip's error). Acknowledged events are
 * purged from the stream at that write only, and a removed queue's events are
 * left to expire with the stream's max_age: on nats-server 2.9 a purge by
 * subject scans the stream, and a burst of them stalls every publish
 * (docs/adr/0017-event-queues-in-jetstream.md).
 */
/** A queue's expiry is pushed back whenever it is nearer than this beyond the poll's wait. */
export const EXPIRY_MARGIN_MS = 2000;

/**
 * The share of a queue's life left when a visit writes it down: between 0.3 and 0.7, fixed per queue
 * by its random id. At a fixed half, the queues that clients made together (after a restart) wrote and
 * purged together every half-life: in the soak, 200 purges by subject every 5.4 minutes, each time with
 * nats-server's CPU doubled. Different shares give different periods, so the writes spread and stay so.
 */
function writeShareOf(queueId: string): number {
  return 0.3 + 0.4 * (Number.parseInt(queueId.slice(0, 8), 16) / 2 ** 32 || 0);
}

/** Whether a visit with `remainingMs` of the queue's life left, parking up to `waitMs`, writes the queue down. */
export function isVisitWritten(
  q: Pick<EventQueueDoc, "queueId" | "lifespanSecs">,
  remainingMs: number,
  waitMs: number,
) {
  const lifeMs = q.lifespanSecs * 1000 + waitMs;
  return remainingMs < lifeMs * writeShareOf(q.queueId) || remainingMs < waitMs + EXPIRY_MARGIN_MS;
}

/** What an append's wake says: the new event's id, and the event with the queue's previous id when known. */
export interface Wake {
  id: number;
  carried?: { previous: number; data: string };
}

/** A wake with its event. */
export type CarryingWake = Required<Wake>;

/** `<id>`, or `<id> <previous id>` and a newline before the event's JSON. */
export function encodeWake(id: number, carried?: Wake["carried"]): string {
  return carried ? `${id} ${carried.previous}\n${carried.data}` : String(id);
}

export function decodeWake(text: string): Wake {
  const newline = text.indexOf("\n");
  if (newline < 0) return { id: Number(text) };
  const [id, previous] = text.slice(0, newline).split(" ").map(Number);
  return { id: id!, carried: { previous: previous!, data: text.slice(newline + 1) } };
}

const originHeaders = (origin: number) => {
  const h = headers();
  h.set(ORIGIN_HEADER, String(origin));
  return h;
};

export const badEventQueueId = (queueId: string): ZulipError =>
  new ZulipError("BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

/**
 * Event queues: their settings in MongoDB, their events in a JetStream stream
 * (file storage), so any instance appends and any instance reads, and a queue
 * outlives the instance that created it. An event's id is its stream
 * sequence: increasing within a queue, not consecutive (as zulip.yaml allows),
 * and assigned when it is stored, so a reader never sees a later event before
 * an earlier one. Each append publishes the queue's wake subject with the new
 * id for the poll parked on it, wherever it is.
 */
export class EventStore {
  /** The id of the event this instance last appended to each queue, oldest first (append's expectation). */
  private readonly lastAppended = new Map<string, number>();
  private readonly cache: EventCache<EventQueueDoc | null>;
  private readonly ofRealms: EventCache<EventQueueDoc[]>;
  private readonly changes: EventSubscription;
  private readonly acknowledged: AcknowledgedEvents;
  /** The ids of the queues removed lately, oldest first (include) */
  private readonly removedLately = new Set<string>();

  private constructor(
    private readonly queues: EventQueueRepository,
    private readonly events: EventPublisher<"notifications">,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "event-queues", maxWeight: MAX_CACHED_QUEUES, weigh: () => 1 });
    this.acknowledged = new AcknowledgedEvents(nc);
    this.ofRealms = new EventCache(nc, {
      name: "event-queues-of-realms",
      maxWeight: MAX_CACHED_QUEUES,
      weigh: (qs) => qs.length + 1,
    });
    // no queue group: every instance changes its copies
    this.changes = subscribeEvent(
      nc,
      notificationsEvents.queuesChanged,
      ({ realmId, removed, added }) => {
        if (removed !== null) {
          this.cache.drop(removed);
          this.forget(realmId, removed);
        } else if (added) this.include(added);
        else this.ofRealms.drop(`${realmId}`);
      },
      { log },
    );
  }

  /**
   * Opens the store, creating or updating the stream: events live at most
   * `maxAgeSeconds` (a queue's idle limit and more), on `replicas` nodes.
   */
  static async open(
    queues: EventQueueRepository,
    events: EventPublisher<"notifications">,
    nc: NatsConnection,
    log: Logger,
    { maxAgeSeconds, replicas }: { maxAgeSeconds: number; replicas: number },
  ): Promise<EventStore> {
    const jsm = await streamManager(nc);
    await ensureStream(jsm, {
      name: STREAM,
      subjects: [subjectOf("*")],
      storage: StorageType.File,
      allow_direct: true,
      max_age: maxAgeSeconds * 1e9,
      num_replicas: replicas,
    });
    return new EventStore(queues, events, nc, jetstream(nc), jsm, log);
  }

  stop(): void {
    this.changes.unsubscribe();
    this.acknowledged.stop();
  }

  /** POST /register: the new queue, before any state is asked for. */
  async create(queue: EventQueueDoc): Promise<void> {
    await this.queues.create(queue);
    this.include(queue);
    this.events.publish(notificationsEvents.queuesChanged, { realmId: queue.realmId, removed: null, added: queue });
  }

  /**
   * Puts a new queue in the organization's list where it is held (or being
   * loaded), once whichever way it is heard of first: forgetting the list
   * instead made the next event's fan-out read every queue of the
   * organization again, after each register.
   */
  private include(queue: EventQueueDoc): void {
    // its removal's event came first (one relayed late by the outbox): not taken back in
    if (this.removedLately.has(queue.queueId)) return;
    this.ofRealms.update(`${queue.realmId}`, (queues) => {
      if (!queues.some((q) => q.queueId === queue.queueId)) queues.push({ ...queue });
    });
  }

  /** Takes a removed queue out of the organization's list where it is held. */
  private forget(realmId: number, queueId: string): void {
    this.removedLately.add(queueId);
    if (this.removedLately.size > REMEMBERED_REMOVALS) {
      this.removedLately.delete(this.removedLately.values().next().value!);
    }
    this.ofRealms.update(`${realmId}`, (queues) => {
      const at = queues.findIndex((q) => q.queueId === queueId);
      if (at >= 0) queues.splice(at, 1);
    });
  }

  /** The queue, whoever owns it (DELETE /events tells another user's queue from an unknown one). */
  async byId(realmId: number, queueId: string): Promise<EventQueueDoc | null> {
    const q = await this.cache.get(queueId, () => this.queues.byId(realmId, queueId));
    if (!q) this.cache.drop(queueId);
    return q?.realmId === realmId ? q : null;
  }

  /** The queues of an event's audience. */
  async ofUsers(realmId: number, userIds: Audience): Promise<EventQueueDoc[]> {
    const all = await this.ofRealms.get(`${realmId}`, () => this.queues.ofRealm(realmId));
    if (userIds === "all") return all;
    const audience = new Set(userIds);
    return all.filter((q) => audience.has(q.userId));
  }

  /**
   * The users' queues not past their expiry (Zulip's receiver_is_off_zulip
   * asks this of a message's recipients). Filtered from the organization's
   * list when this instance holds it, else read alone: each of a thousand
   * queues collected in a row would otherwise read a thousand queues to find
   * its owner's others. A visit writes its expiry to the database, through
   * whichever instance, never to this list: a queue whose copy looks expired
   * is read again before it counts as gone, so a user who keeps polling is
   * not taken for idle.
   */
  async liveQueuesOf(realmId: number, userIds: number[]): Promise<EventQueueDoc[]> {
    const now = Date.now();
    if (!this.ofRealms.has(`${realmId}`)) {
      return (await this.queues.ofUsers(realmId, userIds)).filter((q) => q.expiresAt.getTime() > now);
    }
    const queues = await this.ofUsers(realmId, userIds);
    const looksExpired = new Map(queues.filter((q) => q.expiresAt.getTime() <= now).map((q) => [q.queueId, q]));
    // the kept copies only: a visit writes its expiry to the database
    const read = looksExpired.size ? await this.queues.byIds(realmId, [...looksExpired.keys()]) : [];
    for (const { queueId, lastAccess, expiresAt, prunedThrough } of read) {
      Object.assign(looksExpired.get(queueId)!, { lastAccess, expiresAt, prunedThrough });
    }
    return queues.filter((q) => q.expiresAt.getTime() > now);
  }

  /**
   * The caller's live queue; BAD_EVENT_QUEUE_ID when unknown or expired, and
   * Zulip's refusal (fetch_events) when it is another user's.
   */
  async access(realmId: number, userId: number, queueId: string): Promise<EventQueueDoc> {
    let q = await this.byId(realmId, queueId);
    if (q && q.expiresAt.getTime() < Date.now()) {
      // this instance's copy may predate visits through other instances
      this.cache.drop(queueId);
      q = await this.byId(realmId, queueId);
      if (q && q.expiresAt.getTime() < Date.now()) {
        await this.collect(q);
        q = null;
      }
    }
    if (!q) throw badEventQueueId(queueId);
    if (q.userId !== userId) throw badRequest("You are not authorized to get events from this queue");
    return q;
  }

  /**
   * Appends an event to the queue and wakes the poll parked on it; the event's
   * id. A `msgID` the stream stored within its duplicate window (2 minutes)
   * is not stored again: the first copy's id is returned.
   *
   * When this instance made the queue's previous append, the event is stored
   * only if that is still the queue's newest (JetStream's expected last
   * subject sequence), and the wake carries the event with that previous id:
   * a poll that has everything up to it answers the event from the wake,
   * without reading the stream. Another instance's append in between (a
   * heartbeat) fails the expectation, and the event is appended without one.
   * `origin`, the sequence of the domain event a message event was made of,
   * goes with it for the queue's collection (messagesNeverFetched).
   */
  async append(queueId: string, event: notifications.ClientEvent, msgID?: string, origin?: number): Promise<number> {
    const subject = subjectOf(queueId);
    const data = JSON.stringify(event);
    const previous = this.lastAppended.get(queueId);
    this.lastAppended.delete(queueId);
    let ack;
    try {
      ack = await this.js.publish(subject, data, {
        ...(msgID && { msgID }),
        ...(origin !== undefined && { headers: originHeaders(origin) }),
        ...(previous !== undefined && { expect: { lastSubjectSequence: previous } }),
      });
    } catch (err) {
      if (previous === undefined || !isWrongLastSequence(err)) throw err;
      return this.append(queueId, event, msgID, origin);
    }
    // a duplicate's id is its first copy's, not the queue's newest
    if (!ack.duplicate) {
      this.lastAppended.set(queueId, ack.seq);
      if (this.lastAppended.size > MAX_CACHED_QUEUES) this.lastAppended.delete(this.lastAppended.keys().next().value!);
    }
    const carried = previous !== undefined && !ack.duplicate ? { previous, data } : undefined;
    this.nc.publish(notifications.queueWakeSubject(queueId), encodeWake(ack.seq, carried));
    return ack.seq;
  }

  /** The id of the queue's newest event still stored, or -1. */
  async lastEventId(queueId: string): Promise<number> {
    return (await this.jsm.direct.getMessage(STREAM, { last_by_subj: subjectOf(queueId) }))?.seq ?? -1;
  }

  /**
   * GET /events' visit: the client has every event up to `acknowledged`.
   * Written down (expiry, acknowledged events purged) now and then, see the
   * note on visits above; `waitMs` is how long the poll may stay parked.
   */
  async visit(realmId: number, q: EventQueueDoc, acknowledged: number, waitMs: number): Promise<void> {
    this.acknowledged.note(q.queueId, acknowledged);
    const now = Date.now();
    if (!isVisitWritten(q, q.expiresAt.getTime() - now, waitMs)) return;
    Object.assign(q, await this.queues.touch(realmId, q, acknowledged, waitMs, now));
    if (acknowledged > -1) {
      await this.jsm.streams.purge(STREAM, { filter: subjectOf(q.queueId), seq: acknowledged + 1 });
    }
  }

  /**
   * Events after `after`, in order; null when the queue is gone. `knownLast`,
   * the newest id an append announced, spares the read that finds nothing more
   * (and every read when it is not after `after`); `carried`, the newest
   * appends' wakes with their events (ParkedPolls.carriedWakes), spare the
   * reads when they hold every event after `after`. The events stay JSON text:
   * GET /events passes them on.
   */
  async pending(
    realmId: number,
    queueId: string,
    after: number,
    knownLast = Infinity,
    carried: CarryingWake[] = [],
  ): Promise<StoredEvent[] | null> {
    if (!(await this.byId(realmId, queueId))) return null;
    const first = carried.findIndex((w) => w.carried.previous <= after && after < w.id);
    if (first >= 0 && carried.at(-1)!.id === knownLast) {
      return carried.slice(first).map((w) => ({ id: w.id, json: w.carried.data }));
    }
    const events: StoredEvent[] = [];
    for await (const m of this.stored(queueId, after, knownLast)) events.push({ id: m.seq, json: m.string() });
    return events;
  }

  /** The queue's events after `after` (up to `last`) still in the stream, whether or not the queue is, one at a time. */
  private async *stored(queueId: string, after: number, last = Infinity): AsyncGenerator<StoredMsg> {
    for (let seq = Math.max(1, after + 1); seq <= last;) {
      const m = await this.jsm.direct.getMessage(STREAM, { seq, next_by_subj: subjectOf(queueId) });
      if (!m) return;
      yield m;
      seq = m.seq + 1;
    }
  }

  /**
   * A collected queue's message events its client never acknowledged (after
   * `written`, its document's, or what any instance's polls acknowledged
   * since): the sequences of the domain events they were made of, oldest
   * first. A removed queue's events stay in the stream until its max_age.
   */
  async messagesNeverFetched(queueId: string, written: number): Promise<number[]> {
    const acknowledged = await this.acknowledged.of(queueId, written);
    // keeping only each event's origin: a queue may hold thousands
    const origins: number[] = [];
    for await (const m of this.stored(queueId, acknowledged)) {
      const origin = m.header?.get(ORIGIN_HEADER);
      if (origin) origins.push(Number(origin));
    }
    return origins;
  }

  async remove(realmId: number, queueId: string): Promise<void> {
    await this.queues.remove(realmId, queueId);
    this.cache.drop(queueId);
    this.forget(realmId, queueId);
    this.events.publish(notificationsEvents.queuesChanged, { realmId, removed: queueId });
    this.nc.publish(notifications.queueWakeSubject(queueId));
  }

  /**
   * Removes a queue its client is done with, idle past its lifespan or
   * deleted (Zulip's do_gc_event_queues, whose gc hooks both cases run). A
   * queue that takes messages is first queued for Zulip's missedmessage_hook
   * (CollectedQueueNotice), durably and once per queue, so that an instance
   * dying in between only leaves the queue for the next sweep.
   */
  async collect(q: EventQueueDoc): Promise<void> {
    if (q.eventTypes === null || q.eventTypes.includes("message")) {
      const notice: notifications.CollectedQueueNotice = {
        realmId: q.realmId,
        userId: q.userId,
        queueId: q.queueId,
        acknowledged: q.prunedThrough,
      };
      await publishNotificationWork(this.nc, "queueCollected", notice, `collected:${q.queueId}`);
    }
    await this.remove(q.realmId, q.queueId);
  }

  /** Collects queues idle past their lifespan (run periodically by every instance; deletes are idempotent). */
  async sweep(): Promise<number> {
    const expired = await this.queues.expired(new Date());
    await Promise.all(expired.map((q) => this.collect(q)));
    return expired.length;
  }
}
