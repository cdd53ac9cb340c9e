import {
  NoRespondersError,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Actor, RealmRef } from "./actor";
import { z } from "zod";
import {
  envelopeSchema,
  healthContract,
  type Contract,
  type Envelope,
  type ParamsIn,
  type ParamsOf,
  type ReplyOf,
} from "./contract";
import { withDeadline } from "./deadline";
import { withEventAcks } from "./event-acks";
import {
  ZulipError,
  internalError,
  isTransientFailure,
  serviceUnavailable,
  unauthorized,
  wireErrorSchema,
} from "./errors";
import { parseParams } from "./params";

export const REQUEST_ID_HEADER = "x-request-id";
/** When the caller stops waiting (epoch ms): work still queued at that time is not started. */
export const DEADLINE_HEADER = "x-deadline";

/**
 * A reply on the wire: `{"ok":true,"data":<the reply>}` or `{"ok":false,"error":...}`.
 * A success is written with exactly this prefix, so a caller that passes the
 * reply on (the gateway, POST /register's parts) cuts the data's JSON text out
 * instead of parsing it and serializing it again (~0.8 ms per 100 KB).
 */
const OK_PREFIX = '{"ok":true,"data":';

/** What an instance sends while it still works on a keepAlive request (an empty message: no reply starts so). */
const KEEPALIVE = new Uint8Array(0);
/** How often it sends it, and how long a caller waits without hearing anything before it gives the instance up. */
const KEEPALIVE_INTERVAL_MS = 5_000;
const KEEPALIVE_SILENCE_MS = 3 * KEEPALIVE_INTERVAL_MS;
const wireErrorReplySchema = z.object({ ok: z.literal(false), error: wireErrorSchema });

/** A reply already serialized as JSON text (a contract's reply): sent on without being parsed. */
export class RawJson {
  constructor(readonly json: string) {}

  /** One object with the members of each part in turn (a later part's member wins, as in JSON.parse). */
  static merge(parts: Array<RawJson | object>): RawJson {
    const members = parts
      .map((p) => (p instanceof RawJson ? p.json : JSON.stringify(p)))
      .filter((json) => json !== "{}" && json !== "null")
      .map((json) => json.slice(1, -1));
    return new RawJson(`{${members.join(",")}}`);
  }
}

export interface CallContext {
  realm: RealmRef | null;
  actor: Actor | null;
  requestId: string;
  /** The HTTP client's name as Zulip records it on what it sends ("ZulipTerminal", "ZulipPython"); the gateway sets it. */
  client?: string;
}

export interface HandlerContext extends CallContext {
  log: Logger;
  /**
   * Waits without holding one of the instance's handler slots (a parked long
   * poll does no work): the slot is given back while `wait` is pending and
   * taken again, in turn, before the handler goes on.
   */
  parked<T>(wait: Promise<T>): Promise<T>;
}

/** The realm and user of a request to an authenticated operation. */
export function requireUser(ctx: CallContext): { realm: RealmRef; actor: Actor } {
  if (!ctx.actor || !ctx.realm) throw unauthorized();
  return { realm: ctx.realm, actor: ctx.actor };
}

export function requireRealm(ctx: CallContext): RealmRef {
  if (!ctx.realm) throw unauthorized();
  return ctx.realm;
}

/** A handler's reply: the contract's reply, or (when it only passes parts on) its JSON text. */
export type Handler<C extends Contract> = (
  params: ParamsOf<C>,
  ctx: HandlerContext,
) => Promise<ReplyOf<C> | RawJson> | ReplyOf<C> | RawJson;

const encoder = new TextEncoder();
const encode = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));

export interface BusClientOptions {
  /** Used when the contract sets no timeout of its own. */
  timeoutMs?: number;
  /** Check each reply against the contract's reply schema (development and tests). */
  checkReplies?: boolean;
}

/**
 * Whether a connection to NATS is up, and who waits on it. While it is down
 * (a NATS restart) a request or its reply is lost for good: the connection
 * would otherwise hold it until its timeout.
 */
class ConnectionWatch {
  connected = true;
  private readonly waiting = new Set<() => void>();

  constructor(nc: NatsConnection) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect") {
          this.connected = false;
          for (const lost of this.waiting) lost();
          this.waiting.clear();
        } else if (status.type === "reconnect") this.connected = true;
      }
    })();
  }

  /** Rejects with `err` as soon as the connection drops, unless `work` settles first. */
  async whileConnected<T>(work: Promise<T>, err: () => Error): Promise<T> {
    // once the drop has answered, the request's own failure (its timeout) comes later with no one waiting:
    // handled here, or it would end the process as an unhandled rejection
    work.catch(() => undefined);
    if (!this.connected) throw err();
    let lost!: () => void;
    const dropped = new Promise<never>((_, reject) => (lost = () => reject(err())));
    this.waiting.add(lost);
    try {
      return await Promise.race([work, dropped]);
    } finally {
      this.waiting.delete(lost);
    }
  }
}

const watches = new WeakMap<NatsConnection, ConnectionWatch>();
const watchOf = (nc: NatsConnection): ConnectionWatch => {
  let watch = watches.get(nc);
  if (!watch) watches.set(nc, (watch = new ConnectionWatch(nc)));
  return watch;
};

/**
 * The caller's end: typed requests with timeout; "no responders" → 503,
 * timeout → 504, the connection to NATS lost meanwhile → 503 at once.
 */
export class BusClient {
  private readonly timeoutMs: number;
  private readonly checkReplies: boolean;
  private readonly watch: ConnectionWatch;

  constructor(
    private readonly nc: NatsConnection,
    opts: BusClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.checkReplies = opts.checkReplies ?? true;
    this.watch = watchOf(nc);
  }

  /** A call between services: the parameters are typed by the contract, so a misspelt one does not compile. */
  async request<C extends Contract>(contract: C, params: ParamsIn<C>, ctx: CallContext): Promise<ReplyOf<C>> {
    const data: unknown = JSON.parse((await this.send(contract, params, ctx)).json);
    this.check(contract, data);
    return data as ReplyOf<C>;
  }

  /** The same, for a caller that passes the reply on as it is: its JSON text, not parsed. */
  async requestJson<C extends Contract>(contract: C, params: ParamsIn<C>, ctx: CallContext): Promise<RawJson> {
    const reply = await this.send(contract, params, ctx);
    if (this.checkReplies) this.check(contract, JSON.parse(reply.json));
    return reply;
  }

  /** The gateway's HTTP path: parameters decoded from a request, validated by the service that owns the operation. */
  async forward(contract: Contract, params: Record<string, unknown>, ctx: CallContext): Promise<RawJson> {
    return this.requestJson(contract, params as ParamsIn<Contract>, ctx);
  }

  /**
   * A keepAlive request: the reply, after any number of keep-alives. Silence
   * longer than KEEPALIVE_SILENCE_MS means the instance died (503, so that a
   * retry goes to another); the timeout still bounds the whole wait (504).
   */
  private async requestKeptAlive(
    contract: Contract,
    data: Uint8Array,
    timeout: number,
    headers: MsgHdrs,
  ): Promise<Msg> {
    const service = contract.subject.split(".")[0];
    const replies = await this.nc.requestMany(contract.subject, data, {
      strategy: "stall",
      stall: KEEPALIVE_SILENCE_MS,
      maxWait: KEEPALIVE_SILENCE_MS,
      headers,
    });
    const giveUpAt = Date.now() + timeout;
    for await (const msg of replies) {
      if (msg.data.length > 0) return msg;
      if (Date.now() > giveUpAt) throw new ZulipError("GATEWAY_TIMEOUT", `Service timed out: ${service}`, 504);
    }
    throw serviceUnavailable(`Service unavailable: ${service} (the instance serving the request stopped)`);
  }

  private check(contract: Contract, data: unknown): void {
    if (!this.checkReplies) return;
    const checked = contract.reply.safeParse(data);
    if (!checked.success) {
      throw new Error(`${contract.subject}: reply breaks its contract: ${JSON.stringify(checked.error.issues)}`);
    }
  }

  private async send(contract: Contract, params: unknown, ctx: CallContext): Promise<RawJson> {
    const timeout = contract.timeoutMs ?? this.timeoutMs;
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, ctx.requestId);
    h.set(DEADLINE_HEADER, String(Date.now() + timeout));
    const envelope: Envelope = { realm: ctx.realm, actor: ctx.actor, client: ctx.client, params };
    let msg: Msg;
    try {
      const reply = contract.keepAlive
        ? this.requestKeptAlive(contract, encode(envelope), timeout, h)
        : this.nc.request(contract.subject, encode(envelope), { timeout, headers: h });
      msg = await this.watch.whileConnected(reply, () =>
        serviceUnavailable(`Service unavailable: ${contract.subject.split(".")[0]} (connection to NATS lost)`),
      );
    } catch (err) {
      throw busFailure(err, contract.subject);
    }
    const body = msg.string();
    if (body.startsWith(OK_PREFIX)) return new RawJson(body.slice(OK_PREFIX.length, -1));
    throw ZulipError.fromWire(wireErrorReplySchema.parse(JSON.parse(body)).error);
  }
}

/** A reply on a connection that closed meanwhile (the instance stopping) has no one to go to: dropped. */
function respond(msg: Msg, data: Uint8Array): void {
  try {
    msg.respond(data);
  } catch {
    // the caller hears nothing and gives up (timeout, or the keep-alive silence)
  }
}

function busFailure(err: unknown, subject: string): ZulipError {
  if (err instanceof ZulipError) return err;
  const e = err as Error & { isNoResponders?: () => boolean; cause?: unknown };
  const service = subject.split(".")[0];
  if (
    e.isNoResponders?.() ||
    err instanceof NoRespondersError ||
    (e.cause as Error | undefined)?.name === "NoRespondersError"
  ) {
    return new ZulipError("SERVICE_UNAVAILABLE", `Service unavailable: ${service}`, 503);
  }
  if (e.name === "TimeoutError" || (e.cause as Error | undefined)?.name === "TimeoutError") {
    return new ZulipError("GATEWAY_TIMEOUT", `Service timed out: ${service}`, 504);
  }
  return new ZulipError("SERVICE_UNAVAILABLE", `Bus error: ${e.message}`, 503);
}

export interface BusServerOptions {
  nc: NatsConnection;
  service: string;
  logger: Logger;
  /** Requests handled at once by this instance; more wait for a slot in arrival order. */
  concurrency?: number;
  /** Check replies against the contract (development and tests; off in production for speed). */
  validateReplies?: boolean;
}

/**
 * The callee's end: one queue-group subscription per contract (instances share
 * the load), handlers run concurrently up to `concurrency`, every request gets a
 * reply (result or error), and drain() finishes accepted work before returning.
 */
export class BusServer {
  private readonly subs: Subscription[] = [];
  /** Every accepted request, waiting or running, so that drain() can await them all. */
  private readonly accepted = new Set<Promise<void>>();
  private running = 0;
  /** Requests waiting for a slot, first come first served. */
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;

  constructor(private readonly opts: BusServerOptions) {
    this.concurrency = opts.concurrency ?? 256;
  }

  /**
   * Answers the service's health check from now on: called once every handler
   * is registered, so that a gateway's /health is ok only when each service
   * has an instance that serves all its operations (an instance still opening
   * its stores, slower on a NATS cluster, answers none).
   */
  serveHealth(): this {
    return this.handle(healthContract(this.opts.service), () => ({ service: this.opts.service }));
  }

  handle<C extends Contract>(contract: C, handler: Handler<C>): this {
    const sub = this.opts.nc.subscribe(contract.subject, {
      queue: this.opts.service,
      callback: (err, msg) => {
        if (err) {
          this.opts.logger.error({ err, subject: contract.subject }, "subscription error");
          return;
        }
        const work = this.serve(contract, handler as Handler<Contract>, msg);
        this.accepted.add(work);
        void work.finally(() => this.accepted.delete(work));
      },
    });
    this.subs.push(sub);
    return this;
  }

  /** Callback subscriptions deliver without waiting: bound the work running at once. */
  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A freed slot goes straight to the next waiter, so `running` never undercounts. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  private async serve(contract: Contract, handler: Handler<Contract>, msg: Msg): Promise<void> {
    await this.acquire();
    try {
      // Under overload, requests queue here: one whose caller has already given up (504) is
      // dropped instead of started, so the backlog ends with the load instead of outliving it.
      const deadline = Number(msg.headers?.get(DEADLINE_HEADER)) || undefined;
      if (deadline && Date.now() >= deadline) {
        this.opts.logger.debug({ subject: contract.subject }, "caller gave up before a slot was free: not started");
        return;
      }
      await withDeadline(deadline, () => this.answer(contract, handler, msg, (wait) => this.parked(wait)));
    } finally {
      this.release();
    }
  }

  private async parked<T>(wait: Promise<T>): Promise<T> {
    this.release();
    try {
      return await wait;
    } finally {
      await this.acquire();
    }
  }

  private async answer(
    contract: Contract,
    handler: Handler<Contract>,
    msg: Msg,
    parked: HandlerContext["parked"],
  ): Promise<void> {
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    const log = this.opts.logger.child({ requestId, subject: contract.subject });
    const started = performance.now();
    let reply: string;
    const keepAlive = contract.keepAlive && msg.reply ? this.keepAlive(msg) : undefined;
    try {
      const envelope = envelopeSchema.safeParse(msg.json());
      if (!envelope.success) {
        log.error({ issues: envelope.error.issues }, "malformed request envelope");
        throw internalError();
      }
      const { realm, actor, client, params } = envelope.data;
      const parsed = parseParams(contract.params, (params ?? {}) as Record<string, unknown>);
      const data = await withEventAcks(async () => handler(parsed, { realm, actor, client, requestId, log, parked }));
      const json = data instanceof RawJson ? data.json : JSON.stringify(data);
      if (this.opts.validateReplies) {
        const checked = contract.reply.safeParse(data instanceof RawJson ? JSON.parse(json) : data);
        if (!checked.success) {
          log.error({ issues: checked.error.issues }, "reply breaks its contract");
          throw internalError();
        }
      }
      // a handler with nothing to say replies with an empty object
      reply = `${OK_PREFIX}${json ?? "{}"}}`;
    } catch (err) {
      if (err instanceof ZulipError) {
        log.debug({ code: err.code, reason: err.message }, "request refused");
        reply = JSON.stringify({ ok: false, error: err.toWire() });
      } else if (isTransientFailure(err)) {
        log.warn({ err }, "handler failed: database or NATS out of reach");
        reply = JSON.stringify({
          ok: false,
          error: serviceUnavailable(`Service unavailable: ${this.opts.service}`).toWire(),
        });
      } else {
        log.error({ err }, "handler failed");
        reply = JSON.stringify({ ok: false, error: internalError().toWire() });
      }
    }
    if (keepAlive) clearInterval(keepAlive);
    if (msg.reply) respond(msg, encoder.encode(reply));
    log.debug({ ok: reply.startsWith(OK_PREFIX), ms: Math.round((performance.now() - started) * 10) / 10 }, "handled");
  }

  /** Tells the caller of a keepAlive request, now and every KEEPALIVE_INTERVAL_MS, that this instance works on it. */
  private keepAlive(msg: Msg): NodeJS.Timeout {
    respond(msg, KEEPALIVE);
    return setInterval(() => respond(msg, KEEPALIVE), KEEPALIVE_INTERVAL_MS);
  }

  /** Stop taking requests, finish the accepted ones. The connection is the caller's to close. */
  async drain(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => undefined)));
    while (this.accepted.size > 0) await Promise.allSettled([...this.accepted]);
  }
}
