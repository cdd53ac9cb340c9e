import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { notifications } from "@teamchat/shared";
import { decodeWake, type Wake } from "./event-store";

const WAKE_PREFIX = notifications.queueWakeSubject("");
/** Wakes that carry their event, kept for the queue's next poll: at most this many queues' (oldest dropped first). */
const MAX_CARRYING_WAKES = 10_000;

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
 * once it does, as the poll listens before it looks. The newest wake of each
 * queue that carries its event is kept, so the poll it answers need not read
 * the stream (EventStore.append). Wakes missed while disconnected are
 * unknown: everything known is forgotten and every parked poll looks again.
 */
export class ParkedPolls {
  released = false;
  private readonly byQueue = new Map<string, Set<Waiter>>();
  private readonly newestByQueue = new Map<string, number>();
  private readonly carryingByQueue = new Map<string, Wake>();
  private readonly sub: Subscription;

  constructor(nc: NatsConnection) {
    this.sub = nc.subscribe(notifications.QUEUE_WAKE_ALL, {
      callback: (_err, msg) => {
        const queueId = msg.subject.slice(WAKE_PREFIX.length);
        // an append announces its event's id; a removal announces nothing
        const wake = msg.data.length ? decodeWake(msg.string()) : undefined;
        this.carryingByQueue.delete(queueId);
        if (wake === undefined) this.newestByQueue.delete(queueId);
        else {
          const newest = Math.max(this.newestByQueue.get(queueId) ?? wake.id, wake.id);
          this.newestByQueue.set(queueId, newest);
          if (wake.carried && wake.id === newest) this.keepCarrying(queueId, wake);
        }
        this.byQueue.get(queueId)?.forEach((w) => w.wake(true));
      },
    });
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type !== "disconnect" && s.type !== "reconnect") continue;
        this.newestByQueue.clear();
        this.carryingByQueue.clear();
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

  /** The queue's newest wake, if it carried its event (every later wake of the queue drops it). */
  carryingWake(queueId: string): Wake | undefined {
    return this.carryingByQueue.get(queueId);
  }

  private keepCarrying(queueId: string, wake: Wake): void {
    this.carryingByQueue.set(queueId, wake);
    if (this.carryingByQueue.size > MAX_CARRYING_WAKES) {
      this.carryingByQueue.delete(this.carryingByQueue.keys().next().value!);
    }
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
