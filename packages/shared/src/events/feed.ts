import { DeliverPolicy, PubHeaders, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { z } from "zod";
import { REQUEST_ID_HEADER } from "../bus";
import { streamWhenLed } from "../jetstream";
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

interface Replay {
  /** stream time to replay from */
  from: number;
  /** live events heard meanwhile, applied after the replay unless it had them */
  held: Array<{ handler: Handler; msg: EventMsg }>;
}

/**
 * The domain events every instance hears (core NATS subscriptions without a
 * queue group: each instance's caches), on one connection. Core NATS does not
 * redeliver, so after a disconnection the feed replays what it may have missed
 * from the domain events' stream, in the stream's order: from a little before
 * the connection last delivered anything to the stream's end when the
 * connection is back. Live events heard during the replay are held and
 * applied after it, except those it had (by message id), so each handler sees
 * each event in order. Handlers must be idempotent, as for a cache's load
 * racing its events: the replay's first events may have been heard already.
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

  private readonly handlers = new Map<string, Set<Handler>>();
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
  ): Subscription {
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
    let handlers = this.handlers.get(def.subject);
    if (!handlers) this.handlers.set(def.subject, (handlers = new Set()));
    handlers.add(handler);
    const sub = this.nc.subscribe(def.subject, {
      callback: (err, msg) => {
        if (err) log.error({ err, subject: def.subject }, "event subscription failed");
        else if (this.replay) this.replay.held.push({ handler, msg });
        else handler(msg);
      },
    });
    void sub.closed.then(() => handlers.delete(handler));
    return sub;
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
        this.finish(replay, replayed ?? new Set());
        this.log?.info({ replayed: replayed?.size, ms: Date.now() - started }, "missed domain events replayed");
        return;
      } catch (err) {
        if (superseded()) return;
        if (Date.now() - started > REPLAY_DEADLINE_MS) {
          this.reset("the domain events' stream stayed unreadable");
          this.log?.error({ err }, "domain events not replayed: caches forget everything instead");
          this.finish(replay, new Set());
          return;
        }
        await new Promise((r) => setTimeout(r, REPLAY_RETRY_MS));
      }
    }
  }

  /**
   * Hands the handlers every stored event from `from` to the stream's last at
   * the time of asking (later ones arrive live), and returns their message
   * ids; null when the stream has dropped events of that window.
   */
  private async replayFrom(from: number, superseded: () => boolean): Promise<Set<string> | null> {
    const replayed = new Set<string>();
    const info = await streamWhenLed(await jetstreamManager(this.nc, { checkAPI: false }), DOMAIN_EVENTS_STREAM);
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
        for (const handler of this.handlers.get(m.subject) ?? []) handler(m);
        const id = m.headers?.get(PubHeaders.MsgIdHdr);
        if (id) replayed.add(id);
        if (m.seq >= last_seq) {
          batch.stop();
          await consumer.delete().catch(() => undefined);
          return replayed;
        }
      }
      if (received === 0) throw new Error(`the replay got nothing before sequence ${last_seq}`);
    }
  }

  private finish(replay: Replay, replayed: Set<string>): void {
    this.replay = undefined;
    this.lastContact = Date.now();
    for (const { handler, msg } of replay.held) {
      const id = msg.headers?.get(PubHeaders.MsgIdHdr);
      if (!id || !replayed.has(id)) handler(msg);
    }
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
): Subscription => EventFeed.of(nc).subscribe(def, handle, opts.log);
