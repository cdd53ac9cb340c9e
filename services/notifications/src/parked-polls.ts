import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { notifications } from "@teamchat/shared";
import { decodeWake, type CarryingWake } from "./event-store";

const WAKE_PREFIX = notifications.queueWakeSubject("");
/**
 * Wakes that carry their event, kept for the queue's next poll: at most this
 * many per queue (a poll answered under load is often more than one event
 * behind), and this many in all, the least recently woken queue's dropped first.
 */
const MAX_CARRIED_PER_QUEUE = 4;
const MAX_CARRIED = 10_000;

/** One parked GET /events: woken by an append to its queue (on any instance), a timeout, or the instance draining. */
export class Waiter {
  private signalled = false;
  private settle?: (woken: boolean) => void;

  constructor(private readonly polls: ParkedPolls) {}

  /** Resolves true when the queue got something since the last call, false on timeout or drain. */
  next(ms: number): Promise<boolean> {
    if (this.polls.released) return Promise.resolve(false);
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle?.(false), Math.max(0, ms));
      this.settle = (woken) => {
        clearTimeout(timer);
        this.settle = undefined;
        resolve(woken);
      };
    });
  }

  wake(woken: boolean): void {
    if (this.settle) this.settle(woken);
    else this.signalled = woken;
  }
}

/**
 * This instance's parked polls, by queue. One subscription to every queue's wake
 * subject (no queue group: the instance holding the poll must hear it), made at
 * start, so a wake can never precede the subscription.
 *
 * The same wakes tell the newest event id of every queue appended to since this
 * instance started listening, so a poll need not read the stream to learn that
 * nothing is waiting: an append whose wake has not arrived yet wakes the poll
 * once it does, as the poll listens before it looks. The newest wakes of each
 * queue that carry their events are kept while each one's previous id is the
 * one before's (EventStore.append), so the poll they answer need not read the
 * stream. Wakes missed while disconnected are unknown: everything known is
 * forgotten and every parked poll looks again.
 */
export class ParkedPolls {
  released = false;
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private readonly newestByQueue = new Map<string, number>();
  /** per queue, consecutive carrying wakes, oldest first */
  private readonly carriedByQueue = new Map<string, CarryingWake[]>();
  private carried = 0;
  private readonly sub: Subscription;

  constructor(nc: NatsConnection) {
    this.sub = nc.subscribe(notifications.QUEUE_WAKE_ALL, {
      callback: (_err, msg) => {
        const queueId = msg.subject.slice(WAKE_PREFIX.length);
        // an append announces its event's id; a removal announces nothing
        const wake = msg.data.length ? decodeWake(msg.string()) : undefined;
        const chain = this.dropCarried(queueId);
        if (wake === undefined) this.newestByQueue.delete(queueId);
        else {
          const newest = Math.max(this.newestByQueue.get(queueId) ?? wake.id, wake.id);
          this.newestByQueue.set(queueId, newest);
          const { carried } = wake;
          if (carried && wake.id === newest) {
            // the wake continues the kept ones only if nothing was appended between them
            const continues = chain.at(-1)?.id === carried.previous;
            const kept = continues ? chain.slice(1 - MAX_CARRIED_PER_QUEUE) : [];
            this.keepCarried(queueId, [...kept, { id: wake.id, carried }]);
          }
        }
        this.byQueue.get(queueId)?.forEach((w) => w.wake(true));
      },
    });
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type !== "disconnect" && s.type !== "reconnect") continue;
        this.newestByQueue.clear();
        this.carriedByQueue.clear();
        this.carried = 0;
        for (const set of this.byQueue.values()) set.forEach((w) => w.wake(true));
      }
    })();
  }

  /** How many polls this instance holds parked now. */
  get size(): number {
    let n = 0;
    for (const set of this.byQueue.values()) n += set.size;
    return n;
  }

  /** The newest event id announced for the queue since this instance listened (or since it reconnected), if any. */
  newestAnnounced(queueId: string): number | undefined {
    return this.newestByQueue.get(queueId);
  }

  /**
   * The queue's newest wakes, oldest first, if they carried their events and
   * follow one another (each one's previous id is the one before's); the
   * newest of them is the queue's newest announced.
   */
  carriedWakes(queueId: string): CarryingWake[] {
    return this.carriedByQueue.get(queueId) ?? [];
  }

  private dropCarried(queueId: string): CarryingWake[] {
    const chain = this.carriedByQueue.get(queueId) ?? [];
    this.carriedByQueue.delete(queueId);
    this.carried -= chain.length;
    return chain;
  }

  private keepCarried(queueId: string, chain: CarryingWake[]): void {
    // (re)inserted last: the map's first entries are the least recently woken queues
    this.carriedByQueue.set(queueId, chain);
    this.carried += chain.length;
    while (this.carried > MAX_CARRIED) this.dropCarried(this.carriedByQueue.keys().next().value!);
  }

  /** Listen before looking at the queue, so that an append between the look and the wait is not missed. */
  listen(queueId: string): Waiter {
    const w = new Waiter(this);
    const set = this.byQueue.get(queueId) ?? new Set();
    set.add(w);
    this.byQueue.set(queueId, set);
    return w;
  }

  dispose(queueId: string, w: Waiter): void {
    const set = this.byQueue.get(queueId);
    set?.delete(w);
    if (set?.size === 0) this.byQueue.delete(queueId);
  }

  /** Draining: answer every parked poll now (and any that arrives later) so a restart does not hold clients. */
  release(): void {
    this.released = true;
    for (const set of this.byQueue.values()) set.forEach((w) => w.wake(false));
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}
