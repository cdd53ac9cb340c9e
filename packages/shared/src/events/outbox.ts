import type { Connection } from "mongoose";
import type { Logger } from "pino";
import { isDuplicateKey } from "../db";

/** A domain event the stream did not take in time, as kept until it does. */
export interface HeldEvent {
  /** the event's message id: the stream keeps one copy whichever attempts land */
  _id: string;
  subject: string;
  /** the payload's JSON */
  data: string;
  requestId: string | null;
  /** when it was held, then the instance's own count: the order the relay publishes in */
  at: Date;
  n: number;
}

/** While events wait, the relay tries the stream this often. */
const RELAY_EVERY_MS = 250;
/** Otherwise it looks this often for events left by an instance that died holding them. */
const LEFT_BEHIND_EVERY_MS = 5_000;
const RELAY_BATCH = 100;

/**
 * Domain events the stream could not take in time, kept in the publishing
 * service's own database until it can. When a NATS node holding a stream's
 * leader is lost, the stream takes no writes until the others elect a new
 * leader: 4–9 s, nats-server's fixed Raft election timeouts. A write that has
 * committed does not wait for that: EventPublisher holds its event here and
 * the write answers; the relay publishes held events in the order they were
 * held, each with its message id (so a copy an earlier attempt did store is
 * not stored again), and deletes each once the stream has it. While this
 * instance holds any, its later events are held behind them, so they reach the
 * stream in the order they were published. Events reach consumers when the
 * stream takes them, as before; only the writer no longer waits.
 */
export class EventOutbox {
  /** Events wait (this instance held one, or the last look found some): new ones go behind them. */
  backlog = false;
  private heldCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private relaying: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly conn: Connection,
    /** Stores one held event in the stream (throws when it cannot now). */
    private readonly publish: (event: HeldEvent) => Promise<void>,
    private readonly log?: Logger,
  ) {}

  private events() {
    return this.conn.collection<HeldEvent>("event_outbox");
  }

  /** Starts relaying: now (events an earlier instance left), then on the timer. */
  start(): this {
    this.schedule(0);
    return this;
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.relaying ?? Promise.resolve();
  }

  /** Keeps the event until the relay stores it (a second hold of the same message id keeps the first). */
  async hold(event: Omit<HeldEvent, "at" | "n">): Promise<void> {
    if (!this.backlog)
      this.log?.warn({ subject: event.subject }, "the stream takes no events: holding them in the outbox");
    this.backlog = true;
    try {
      await this.events().insertOne({ ...event, at: new Date(), n: this.heldCount++ });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    this.schedule(RELAY_EVERY_MS);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.relaying ??= this.relay().finally(() => {
        this.relaying = undefined;
        this.schedule(this.backlog ? RELAY_EVERY_MS : LEFT_BEHIND_EVERY_MS);
      });
    }, ms);
    this.timer.unref();
  }

  /** Publishes held events, oldest first, until none is left or the stream refuses one (kept for the next round). */
  private async relay(): Promise<void> {
    const heldBefore = this.heldCount;
    try {
      for (;;) {
        const batch = await this.events().find().sort({ at: 1, n: 1 }).limit(RELAY_BATCH).toArray();
        if (batch.length === 0) {
          // an event held meanwhile may not be written yet: the backlog ends on a round that held none
          if (this.heldCount !== heldBefore) return;
          if (this.backlog) this.log?.info("the stream took every held event");
          this.backlog = false;
          return;
        }
        this.backlog = true;
        for (const event of batch) {
          await this.publish(event);
          await this.events().deleteOne({ _id: event._id });
        }
      }
    } catch (err) {
      // the stream (or the database) is still out of reach: the next round tries again
      this.log?.debug({ err }, "held events not relayed yet");
    }
  }
}
