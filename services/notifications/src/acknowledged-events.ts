import type { NatsConnection, Subscription } from "@nats-io/transport-node";

/** Every instance answers here with what its polls acknowledged of the queue named in the request (-1: nothing). */
const SUBJECT = "notifications.acknowledged";
/** Queues whose acknowledgments an instance remembers, the least recently polled forgotten first. */
const MAX_QUEUES = 100_000;
/** The instances' answers come within this of each other; the wait ends this long after the last. */
const STALL_MS = 50;
const MAX_WAIT_MS = 1_000;

/**
 * What each queue's polls acknowledged (GET /events' last_event_id), as this
 * instance served them. A visit is written to the queue's document only now
 * and then (EventStore.visit), so the document may be behind; Zulip's
 * missedmessage_hook leaves out every event the client acknowledged, so a
 * collected queue's acknowledgments are asked of every instance, whichever
 * served the client's last polls.
 */
export class AcknowledgedEvents {
  private readonly newest = new Map<string, number>();
  private readonly sub: Subscription;

  constructor(private readonly nc: NatsConnection) {
    this.sub = nc.subscribe(SUBJECT, {
      // even with nothing: the asker's wait then ends shortly after the last instance's answer
      callback: (_err, msg) => void msg.respond(String(this.newest.get(msg.string()) ?? -1)),
    });
  }

  /** A poll of the queue acknowledged events up to `id`. */
  note(queueId: string, id: number): void {
    if (id < 0) return;
    const before = this.newest.get(queueId) ?? -1;
    this.newest.delete(queueId);
    this.newest.set(queueId, Math.max(before, id));
    if (this.newest.size > MAX_QUEUES) this.newest.delete(this.newest.keys().next().value!);
  }

  /** The newest event any instance's polls of the queue acknowledged, or `written` (its document's) if newer. */
  async of(queueId: string, written: number): Promise<number> {
    let newest = Math.max(written, this.newest.get(queueId) ?? -1);
    const answers = await this.nc.requestMany(SUBJECT, queueId, {
      strategy: "stall",
      stall: STALL_MS,
      maxWait: MAX_WAIT_MS,
    });
    for await (const m of answers) newest = Math.max(newest, Number(m.string()));
    return newest;
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}
