import { DeliverPolicy, PubHeaders, jetstream } from "@nats-io/jetstream";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { z } from "zod";
import { REQUEST_ID_HEADER } from "../bus";
import { streamManager, streamWhenLed } from "../jetstream";
import type { EventDefinition } from "./define";
import { DOMAIN_EVENTS_STREAM } from "./stream";

/** What a handler reads of an event, heard live (core NATS) or replayed from the stream alike. */
type EventMsg = Pick<Msg, "subject" | "headers" | "json">;
type Handler = (msg: EventMsg) => void;

/**
 * Replay starts this long before the connection was last known to deliver:
 * for an event stored earlier but still on its way (a route between cluster
 * nodes) and for clocks a little apart.
 */
const REPLAY_MARGIN_MS = 5_000;
/** How often the connection is checked for having delivered anything (the replay's starting point). */
const CONTACT_TICK_MS = 1_000;
/** A replay that cannot read the stream for this long (JetStream still recovering) gives up: caches forget instead. */
const REPLAY_DEADLINE_MS = 30_000;
const REPLAY_RETRY_MS = 250;
const REPLAY_BATCH = 1_000;

/** Message ids of the events applied last, so that a second copy of one is not applied again. */
const REMEMBERED_IDS = 20_000;

interface Replay {
  /** stream time to replay from */
  from: number;
  /** live events heard meanwhile, applied after the replay (each once: the replay may have had them) */
  held: EventMsg[];
}

/** What an EventFeed subscription can do: stop. */
export interface EventSubscription {
  unsubscribe(): void;
}

/**
 * The domain events every instance hears (core NATS subscriptions without a
 * queue group: each instance's caches), on one connection. Core NATS does not
 * redeliver, so after a disconnection the feed replays what it may have missed
 * from the domain events' stream, in the stream's order: from a little before
 * the connection last delivered anything to the stream's end when the
 * connection is back. Live events heard during the replay are held and
 * applied after it. Every event is applied once, by its message id (the
 * replay's first events were mostly heard before the disconnection; a
 * publisher that tried again sent a second copy), in the order heard.
 * Handlers must still be idempotent, as for a cache's load racing its events.
 *
 * From the disconnection until the replay ends the feed is not `current`:
 * caches answer from the database meanwhile and keep what they held, instead
 * of forgetting everything and reloading it all at once after a NATS restart.
 * A replay that cannot be done (the stream has dropped events of the window,
 * or stays unreadable) resets: the caches forget everything.
 */
export class EventFeed {
  private static readonly feeds = new WeakMap<NatsConnection, EventFeed>();

  /** The connection's feed, made on first use. */
  static of(nc: NatsConnection): EventFeed {
    let feed = EventFeed.feeds.get(nc);
    if (!feed) EventFeed.feeds.set(nc, (feed = new EventFeed(nc)));
    return feed;
  }

  /** one core subscription per subject, for every handler of it */
  private readonly subjects = new Map<string, { sub: Subscription; handlers: Set<Handler> }>();
  private readonly applied = new Set<string>();
  private readonly resets: Array<() => void> = [];
  private replay?: Replay;
  /** bumped by each reconnection: a replay still running for an earlier one stops */
  private attempt = 0;
  /** the last time the connection was known to be delivering */
  private lastContact = Date.now();
  private log?: Logger;

  private constructor(private readonly nc: NatsConnection) {
    let seen = nc.stats().inMsgs;
    let tick = Date.now();
    // every message is delivered in order: one received since the last tick means every event
    // published before that tick has arrived (the margin covers what was still on its way)
    const ticker = setInterval(() => {
      const now = Date.now();
      const inMsgs = nc.stats().inMsgs;
      if (inMsgs !== seen && !this.replay) this.lastContact = tick;
      seen = inMsgs;
      tick = now;
    }, CONTACT_TICK_MS);
    ticker.unref();
    void nc.closed().then(() => clearInterval(ticker));
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") this.replay ??= { from: this.lastContact - REPLAY_MARGIN_MS, held: [] };
        else if (s.type === "reconnect") void this.catchUp();
      }
    })();
  }

  /** Whether every event published so far has been applied (false from a disconnection until its replay ends). */
  get current(): boolean {
    return this.replay === undefined;
  }

  /** Called when a replay cannot be done: what was kept from events may be stale and must be forgotten. */
  onReset(forget: () => void): void {
    this.resets.push(forget);
  }

  /** Hands every event of `def` to `handle`, in order; payloads that break the schema are logged and dropped. */
  subscribe<P extends z.ZodType>(
    def: EventDefinition<P>,
    handle: (payload: z.output<P>, meta: { requestId?: string; subject: string }) => void,
    log: Logger,
  ): EventSubscription {
    this.log ??= log;
    const handler: Handler = (msg) => {
      const requestId = msg.headers?.get(REQUEST_ID_HEADER) || undefined;
      const parsed = def.payload.safeParse(msg.json());
      if (!parsed.success) {
        log.error({ subject: def.subject, requestId, issues: parsed.error.issues }, "malformed event dropped");
        return;
      }
      handle(parsed.data, { requestId, subject: msg.subject });
    };
    let subject = this.subjects.get(def.subject);
    if (!subject) {
      const sub = this.nc.subscribe(def.subject, {
        callback: (err, msg) => {
          if (err) log.error({ err, subject: def.subject }, "event subscription failed");
          else if (this.replay) this.replay.held.push(msg);
          else this.apply(msg);
        },
      });
      this.subjects.set(def.subject, (subject = { sub, handlers: new Set() }));
    }
    const { sub, handlers } = subject;
    handlers.add(handler);
    return {
      unsubscribe: () => {
        handlers.delete(handler);
        if (handlers.size > 0 || this.subjects.get(def.subject)?.sub !== sub) return;
        sub.unsubscribe();
        this.subjects.delete(def.subject);
      },
    };
  }

  /** Hands the event to its subject's handlers, unless a copy of it was applied already. */
  private apply(msg: EventMsg): void {
    const id = msg.headers?.get(PubHeaders.MsgIdHdr);
    if (id) {
      if (this.applied.has(id)) return;
      this.applied.add(id);
      if (this.applied.size > REMEMBERED_IDS) this.applied.delete(this.applied.values().next().value!);
    }
    for (const handler of this.subjects.get(msg.subject)?.handlers ?? []) {
      try {
        handler(msg);
      } catch (err) {
        this.log?.error({ err, subject: msg.subject }, "event handler failed");
      }
    }
  }

  /** Replays what the disconnection may have cost, then the live events held meanwhile. */
  private async catchUp(): Promise<void> {
    const attempt = ++this.attempt;
    const replay = this.replay;
    if (!replay) return;
    const started = Date.now();
    const superseded = () => attempt !== this.attempt;
    for (;;) {
      try {
        const replayed = await this.replayFrom(replay.from, superseded);
        if (superseded()) return;
        if (replayed === null) this.reset("the stream no longer holds every event since the disconnection");
        this.finish(replay);
        this.log?.info({ replayed, ms: Date.now() - started }, "missed domain events replayed");
        return;
      } catch (err) {
        if (superseded()) return;
        if (Date.now() - started > REPLAY_DEADLINE_MS) {
          this.reset("the domain events' stream stayed unreadable");
          this.log?.error({ err }, "domain events not replayed: caches forget everything instead");
          this.finish(replay);
          return;
        }
        await new Promise((r) => setTimeout(r, REPLAY_RETRY_MS));
      }
    }
  }

  /**
   * Applies every stored event from `from` to the stream's last at the time
   * of asking (later ones arrive live); returns how many were read, or null
   * when the stream has dropped events of that window.
   */
  private async replayFrom(from: number, superseded: () => boolean): Promise<number | null> {
    let replayed = 0;
    const info = await streamWhenLed(await streamManager(this.nc), DOMAIN_EVENTS_STREAM);
    if (!info) return null;
    const { messages, first_seq, first_ts, last_seq, last_ts } = info.state;
    if (last_seq === 0 || Date.parse(last_ts) < from) return replayed;
    // events stored after `from` were removed (age and size limits, a purge)
    if (messages === 0 || (first_seq > 1 && Date.parse(first_ts) > from)) return null;
    const consumer = await jetstream(this.nc).consumers.get(DOMAIN_EVENTS_STREAM, {
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: new Date(from).toISOString(),
    });
    for (;;) {
      const batch = await consumer.fetch({ max_messages: REPLAY_BATCH, expires: 2_000 });
      let received = 0;
      for await (const m of batch) {
        if (superseded()) return replayed;
        received++;
        replayed++;
        this.apply(m);
        if (m.seq >= last_seq) {
          batch.stop();
          await consumer.delete().catch(() => undefined);
          return replayed;
        }
      }
      if (received === 0) throw new Error(`the replay got nothing before sequence ${last_seq}`);
    }
  }

  private finish(replay: Replay): void {
    this.replay = undefined;
    this.lastContact = Date.now();
    for (const msg of replay.held) this.apply(msg);
  }

  private reset(why: string): void {
    this.log?.warn({ why }, "domain events missed: caches forget everything");
    for (const forget of this.resets) forget();
  }
}

/** Consumes one kind of event on every instance (see EventFeed). */
export const subscribeEvent = <P extends z.ZodType>(
  nc: NatsConnection,
  def: EventDefinition<P>,
  handle: (payload: z.output<P>, meta: { requestId?: string; subject: string }) => void,
  opts: { log: Logger },
): EventSubscription => EventFeed.of(nc).subscribe(def, handle, opts.log);
