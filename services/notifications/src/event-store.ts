import type { NatsConnection } from "@nats-io/transport-node";
import { ZulipError, isDuplicateKey, notifications, type Audience } from "@teamchat/shared";
import type { EventQueueDoc } from "./event-queues/event-queue.schema";
import type { EventQueueRepository } from "./event-queues/event-queue.repository";
import type { QueueEventRepository } from "./queue-events/queue-event.repository";

type QueuedEvent = notifications.ClientEvent & { id: number };

/** How long a reader waits for a hole (an id handed out whose event is not written yet) before skipping it. */
const GAP_RETRIES = 20;
const GAP_RETRY_MS = 50;

/** A transient storage error (e.g. a dropped connection) must not drop an event: try again a few times. */
async function retried<T>(op: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await op();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * i));
    }
  }
}

export const badEventQueueId = (queueId: string): ZulipError =>
  new ZulipError("BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

/** Event queues in MongoDB: any instance appends, any instance reads. */
export class EventStore {
  constructor(
    private readonly queues: EventQueueRepository,
    private readonly events: QueueEventRepository,
    private readonly nc: NatsConnection,
  ) {}

  /** POST /register: the new queue, before any state is asked for. */
  create(queue: EventQueueDoc): Promise<void> {
    return this.queues.create(queue);
  }

  /** The queue, whoever owns it (DELETE /events tells another user's queue from an unknown one). */
  byId(realmId: number, queueId: string): Promise<EventQueueDoc | null> {
    return this.queues.byId(realmId, queueId);
  }

  /** The queues of an event's audience. */
  ofUsers(realmId: number, userIds: Audience): Promise<EventQueueDoc[]> {
    return this.queues.ofUsers(realmId, userIds);
  }

  /** The caller's live queue, or BAD_EVENT_QUEUE_ID (unknown, expired, or another user's). */
  async access(realmId: number, userId: number, queueId: string): Promise<EventQueueDoc> {
    const q = await this.queues.byId(realmId, queueId);
    if (!q || q.userId !== userId) throw badEventQueueId(queueId);
    if (q.expiresAt.getTime() < Date.now()) {
      await this.remove(realmId, queueId);
      throw badEventQueueId(queueId);
    }
    return q;
  }

  /**
   * Appends an event under the queue's next id and wakes the queue's poll
   * wherever it is parked. The id comes from an atomic `$inc` on the queue
   * document, so concurrent appenders on any instance never share one, and ids
   * only increase. A queue deleted meanwhile gets nothing.
   */
  async append(realmId: number, queueId: string, event: notifications.ClientEvent): Promise<void> {
    const id = await retried(() => this.queues.nextEventId(realmId, queueId));
    if (id === null) return;
    // a duplicate key means an earlier attempt did land
    await retried(() =>
      this.events.add({ realmId, queueId, id, event }).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      }),
    );
    this.wake(queueId);
  }

  /** GET /events: the client has every event up to `acknowledged`; they are deleted (and the visit recorded). */
  async acknowledge(realmId: number, q: EventQueueDoc, acknowledged: number, waitMs: number): Promise<void> {
    await this.touch(realmId, q, acknowledged, waitMs);
    await this.events.pruneThrough(realmId, q.queueId, acknowledged);
  }

  /** A client's visit: the queue lives for its lifespan (+ `waitMs`, the wait of a parked poll) from now. */
  touch(realmId: number, q: EventQueueDoc, acknowledged: number, waitMs: number): Promise<void> {
    return this.queues.touch(realmId, q, acknowledged, waitMs);
  }

  /**
   * Events after `after`, in order, or null when the queue is gone. Appenders
   * (on any instance) take an id before writing the event, so a higher id can
   * land before a lower one: a reader that sees a hole waits briefly for it, so a
   * later event is never delivered (and then acknowledged) before an earlier one.
   * A hole that stays (an insert that failed for good) is skipped.
   */
  async pending(realmId: number, queueId: string, after: number): Promise<QueuedEvent[] | null> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.queues.byId(realmId, queueId);
      if (!current) return null;
      const docs = await this.events.after(realmId, queueId, after);
      const complete = docs.length >= current.lastEventId - after && docs.every((d, i) => d.id === after + 1 + i);
      if (complete || attempt === GAP_RETRIES) return docs.map((d) => ({ ...d.event, id: d.id }));
      await new Promise((resolve) => setTimeout(resolve, GAP_RETRY_MS));
    }
  }

  async remove(realmId: number, queueId: string): Promise<void> {
    await this.queues.remove(realmId, queueId);
    await this.events.removeQueue(realmId, queueId);
    this.wake(queueId);
  }

  /** Collects queues idle past their lifespan (run periodically by every instance; deletes are idempotent). */
  async sweep(): Promise<number> {
    const expired = await this.queues.expired(new Date());
    await Promise.all(expired.map((q) => this.remove(q.realmId, q.queueId)));
    return expired.length;
  }

  private wake(queueId: string): void {
    this.nc.publish(notifications.queueWakeSubject(queueId));
  }
}
