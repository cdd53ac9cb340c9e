import {
  NoRespondersError,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from "@nats-io/transport-node";
import type { Endpoint } from "@nats-io/services";
import { randomUUID } from "node:crypto";
import { lazyChild, type Logger } from "./logger";
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
import { registerDiscovery, type Service } from "./discovery";
import { withEventAcks } from "./event-acks";
import {
  ZulipError,
  internalError,
  isTransientFailure,
  serviceUnavailable,
  unauthorized,
  wireErrorSchema,
} from "./errors";
import { metricsOf, type ServiceMetrics } from "./metrics";
import { parseParams } from "./params";

export const REQUEST_ID_HEADER = "x-request-id";
/** When the caller stops waiting (epoch ms): work still queued at that time is not started. */
export const DEADLINE_HEADER = "x-deadline";

/**
 * A reply on the wire: `{"ok":true,"data":<the reply>}` or `{"ok":false,"error":...}`.
 * A success is written with exactly this prefix, so a caller that passes the
 * reply on (the gateway, POST /register's parts) cuts the data's JSON text out
 * instead of parsing it and serializing it again (docs/adr/0028-replies-as-json-bytes.md).
 */
const OK_PREFIX = '{"ok":true,"data":';

/** What an instance sends while it still works on a keepAlive request (an empty message: no reply starts so). */
const KEEPALIVE = new Uint8Array(0);
/** A caller gives the instance up after this many of its keep-alive intervals without hearing anything. */
const KEEPALIVE_SILENCE_INTERVALS = 3;
const wireErrorReplySchema = z.object({ ok: z.literal(false), error: wireErrorSchema });

/** A reply already serialized as JSON (a contract's reply), as UTF-8 bytes: sent on without being decoded or parsed. */
export class RawJson {
  readonly bytes: Buffer;

  constructor(json: string | Uint8Array) {
    this.bytes =
      typeof json === "string" ? Buffer.from(json) : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  }

  /** The JSON text (decoded on each call). */
  get json(): string {
    return this.bytes.toString("utf8");
  }

  /**
   * One object with the members of each part in turn (a later part's member
   * wins, as in JSON.parse), joined as bytes: POST /register's large state is
   * copied once, not decoded, sliced, joined and encoded again
   * (docs/adr/0028-replies-as-json-bytes.md).
   */
  static merge(parts: Array<RawJson | object>): RawJson {
    const members = parts
      .map((p) => (p instanceof RawJson ? p.bytes : Buffer.from(JSON.stringify(p))))
      .filter((json) => !(json.equals(EMPTY_OBJECT) || json.equals(NULL)))
      .flatMap((json, i) => (i > 0 ? [COMMA, json.subarray(1, -1)] : [json.subarray(1, -1)]));
    return new RawJson(Buffer.concat([OPEN_BRACE, ...members, CLOSE_BRACE]));
  }
}
const [OPEN_BRACE, CLOSE_BRACE, COMMA, EMPTY_OBJECT, NULL, OK_PREFIX_BYTES] = [
  "{",
  "}",
  ",",
  "{}",
  "null",
  OK_PREFIX,
].map((s) => Buffer.from(s)) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer];

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
 * A request made while the connection to NATS is down waits this long for it
 * to come back before it is refused: a NATS restart costs about a second, and
 * a short wait beats a 503 the client has to retry. For as long after a
 * reconnection, a request no instance is subscribed to is made again: the
 * other services reconnect one by one.
 */
const RECONNECT_WAIT_MS = 2_000;
const NO_RESPONDERS_PAUSE_MS = 100;

/**
 * Whether a connection to NATS is up, and who waits on it. While it is down
 * (a NATS restart) a request or its reply is lost for good: the connection
 * would otherwise hold it until its timeout.
 */
class ConnectionWatch {
  connected = true;
  private reconnectedAt = 0;
  private readonly waiting = new Set<() => void>();
  private readonly waitingForReconnect = new Set<() => void>();

  constructor(nc: NatsConnection) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect") {
          this.connected = false;
          for (const lost of this.waiting) lost();
          this.waiting.clear();
        } else if (status.type === "reconnect") {
          this.connected = true;
          this.reconnectedAt = Date.now();
          for (const back of this.waitingForReconnect) back();
          this.waitingForReconnect.clear();
        }
      }
    })();
  }

  /** Whether the connection is up within `ms` (at once when it is up now). */
  async upWithin(ms: number): Promise<boolean> {
    if (this.connected) return true;
    return new Promise((resolve) => {
      const back = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waitingForReconnect.delete(back);
        resolve(false);
      }, ms);
      this.waitingForReconnect.add(back);
    });
  }

  /** Whether the connection came back less than `ms` ago. */
  reconnectedWithin(ms: number): boolean {
    return Date.now() - this.reconnectedAt < ms;
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
 * timeout → 504, the connection to NATS lost meanwhile → 503 at once, and
 * lost when the request is made → 503 unless it is back within 2 s (and then
 * services not subscribed again yet are waited for as long).
 */
export class BusClient {
  private readonly timeoutMs: number;
  private readonly checkReplies: boolean;
  private readonly watch: ConnectionWatch;
  private readonly metrics: ServiceMetrics;

  constructor(
    private readonly nc: NatsConnection,
    opts: BusClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.checkReplies = opts.checkReplies ?? true;
    this.watch = watchOf(nc);
    this.metrics = metricsOf(nc);
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
   * for KEEPALIVE_SILENCE_INTERVALS of them means the instance died (503, so
   * that a retry goes to another); the timeout still bounds the whole wait (504).
   */
  private async requestKeptAlive(
    contract: Contract,
    everyMs: number,
    data: Uint8Array,
    timeout: number,
    headers: MsgHdrs,
  ): Promise<Msg> {
    const service = contract.subject.split(".")[0];
    const silenceMs = KEEPALIVE_SILENCE_INTERVALS * everyMs;
    // nats.js builds a RequestError for every requestMany, ignoring noAsyncTraces, only to append its stack
    // to a failure's, and every GET /events is one: built without frames here (synchronously, inside
    // requestMany); our failures name the operation. Its cost: docs/adr/0003-nats-request-cancel.md.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let pending;
    try {
      pending = this.nc.requestMany(contract.subject, data, {
        strategy: "stall",
        stall: silenceMs,
        maxWait: silenceMs,
        headers,
      });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    const replies = await pending;
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

  /** The reply, through a NATS restart (see RECONNECT_WAIT_MS). */
  private async deliver(contract: Contract, data: Uint8Array, timeout: number, headers: MsgHdrs): Promise<Msg> {
    const lost = () =>
      serviceUnavailable(`Service unavailable: ${contract.subject.split(".")[0]} (connection to NATS lost)`);
    for (;;) {
      try {
        // not sent while the connection is down: held by the connection, it could run after its caller was refused
        if (!this.watch.connected && !(await this.watch.upWithin(RECONNECT_WAIT_MS))) throw lost();
        const reply = contract.keepAlive
          ? this.requestKeptAlive(contract, contract.keepAlive.everyMs, data, timeout, headers)
          : this.nc.request(contract.subject, data, { timeout, headers });
        return await this.watch.whileConnected(reply, lost);
      } catch (err) {
        // no instance got it: asking again is safe for any operation
        if (!isNoResponders(err) || !this.watch.reconnectedWithin(RECONNECT_WAIT_MS)) throw err;
        await new Promise((r) => setTimeout(r, NO_RESPONDERS_PAUSE_MS));
      }
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
      msg = await this.deliver(contract, encode(envelope), timeout, h);
    } catch (err) {
      const { error, reason } = busFailure(err, contract.subject);
      this.metrics.busClientFailures.inc({ operation: contract.subject, reason });
      throw error;
    }
    const body = msg.data;
    if (OK_PREFIX_BYTES.equals(body.subarray(0, OK_PREFIX_BYTES.length))) {
      return new RawJson(body.subarray(OK_PREFIX_BYTES.length, body.length - 1));
    }
    throw ZulipError.fromWire(wireErrorReplySchema.parse(msg.json()).error);
  }
}

/** A reply on a connection that closed meanwhile (the instance stopping) has no one to go to: dropped. */
function respond(msg: Pick<Msg, "respond">, data: Uint8Array): void {
  try {
    msg.respond(data);
  } catch {
    // the caller hears nothing and gives up (timeout, or the keep-alive silence)
  }
}

/** Whether a NATS request failed because nothing is subscribed to its subject (at once, not after a timeout). */
export function isNoResponders(err: unknown): boolean {
  const e = err as Error & { isNoResponders?: () => boolean; cause?: unknown };
  return (
    e.isNoResponders?.() === true ||
    err instanceof NoRespondersError ||
    (e.cause as Error | undefined)?.name === "NoRespondersError"
  );
}

/** Whether a NATS request (a JetStream API call included) got no answer within its timeout. */
export function isTimeout(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === "TimeoutError" || (err.cause as Error | undefined)?.name === "TimeoutError")
  );
}

/** A request handled slower than this is logged as a warning (long-polls aside). */
const SLOW_REQUEST_MS = 1_000;

/** Why a request got no answer, as `teamchat_bus_client_failures_total` counts it. */
type BusFailureReason = "no_responders" | "timeout" | "unavailable" | "error";

function busFailure(err: unknown, subject: string): { error: ZulipError; reason: BusFailureReason } {
  // raised here: the connection lost meanwhile, a keepAlive request's instance silent (503) or over time (504)
  if (err instanceof ZulipError) return { error: err, reason: err.status === 504 ? "timeout" : "unavailable" };
  const service = subject.split(".")[0];
  if (isNoResponders(err)) {
    return {
      error: new ZulipError("SERVICE_UNAVAILABLE", `Service unavailable: ${service}`, 503),
      reason: "no_responders",
    };
  }
  if (isTimeout(err)) {
    return { error: new ZulipError("GATEWAY_TIMEOUT", `Service timed out: ${service}`, 504), reason: "timeout" };
  }
  return { error: new ZulipError("SERVICE_UNAVAILABLE", `Bus error: ${(err as Error).message}`, 503), reason: "error" };
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

/** A request as the server reads it (the services module hands its own message type over). */
type IncomingRequest = Pick<Msg, "headers" | "reply" | "json" | "respond">;

/** One operation's figures for `$SRV.STATS` (`data` of its endpoint). */
interface EndpointTally {
  requests: number;
  errors: number;
  total_ms: number;
}

/** How an answered request is counted: `OK` or the code of the error replied. */
const OK = "OK";

/**
 * The callee's end: one queue-group subscription per contract (instances share
 * the load), handlers run concurrently up to `concurrency`, every request gets a
 * reply (result or error), and drain() finishes accepted work before returning.
 * Each contract is an endpoint of the instance's NATS service (`$SRV`
 * discovery and stats, see discovery.ts), and each request is counted and
 * timed by operation in the instance's metrics.
 */
export class BusServer {
  /** Every accepted request, waiting or running, so that drain() can await them all. */
  private readonly accepted = new Set<Promise<void>>();
  private running = 0;
  /** Requests waiting for a slot, first come first served. */
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly metrics: ServiceMetrics;

  private constructor(
    private readonly opts: BusServerOptions,
    private readonly discovery: Service,
    private readonly tallies: Map<string, EndpointTally>,
  ) {
    this.concurrency = opts.concurrency ?? 256;
    this.metrics = metricsOf(opts.nc);
  }

  /**
   * Answers the service's health ping from now on: called once every handler
   * is subscribed, so that a caller told the service is up (the gateway's
   * /health, a container probe) finds every operation served.
   */
  announceReady(): this {
    return this.handle(healthContract(this.opts.service), () => ({ service: this.opts.service }));
  }

  /** Registers the instance with NATS service discovery; then handle() adds its operations. */
  static async start(opts: BusServerOptions): Promise<BusServer> {
    const tallies = new Map<string, EndpointTally>();
    const discovery = await registerDiscovery(opts.nc, opts.service, (e: Endpoint) => tallies.get(e.subject));
    return new BusServer(opts, discovery, tallies);
  }

  handle<C extends Contract>(contract: C, handler: Handler<C>): this {
    const tally: EndpointTally = { requests: 0, errors: 0, total_ms: 0 };
    this.tallies.set(contract.subject, tally);
    const duration = this.metrics.busRequestSeconds.labels({ operation: contract.subject });
    const measure = (started: number, code: string) => {
      const ms = performance.now() - started;
      duration.observe(ms / 1000);
      this.metrics.busRequests.inc({ operation: contract.subject, code });
      tally.requests++;
      tally.total_ms += ms;
      if (code !== OK) tally.errors++;
    };
    const { http } = contract;
    this.discovery.addEndpoint(contract.subject.replaceAll(".", "_"), {
      subject: contract.subject,
      metadata: http ? { http: `${http.method} ${http.path}` } : undefined,
      handler: (err, msg) => {
        if (err) {
          this.opts.logger.error({ err, subject: contract.subject }, "subscription error");
          return;
        }
        const work = this.serve(contract, handler as Handler<Contract>, msg as IncomingRequest, measure);
        this.accepted.add(work);
        void work.finally(() => this.accepted.delete(work));
      },
    });
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

  private async serve(
    contract: Contract,
    handler: Handler<Contract>,
    msg: IncomingRequest,
    measure: (started: number, code: string) => void,
  ): Promise<void> {
    const arrived = performance.now();
    // from arrival: a request waiting for a slot is this live instance's too, and its caller must not give it up
    const keepAlive = contract.keepAlive && msg.reply ? this.keepAlive(msg, contract.keepAlive.everyMs) : undefined;
    await this.acquire();
    try {
      // Under overload, requests queue here: one whose caller has already given up (504) is
      // dropped instead of started, so the backlog ends with the load instead of outliving it.
      const deadline = Number(msg.headers?.get(DEADLINE_HEADER)) || undefined;
      if (deadline && Date.now() >= deadline) {
        this.opts.logger.debug({ subject: contract.subject }, "caller gave up before a slot was free: not started");
        this.metrics.busRequests.inc({ operation: contract.subject, code: "ABANDONED" });
        return;
      }
      const code = await withDeadline(deadline, () => this.answer(contract, handler, msg, (wait) => this.parked(wait)));
      measure(arrived, code);
    } finally {
      clearInterval(keepAlive);
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

  /** Replies; returns the outcome as counted (OK or the error code). */
  private async answer(
    contract: Contract,
    handler: Handler<Contract>,
    msg: IncomingRequest,
    parked: HandlerContext["parked"],
  ): Promise<string> {
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    const log = lazyChild(this.opts.logger, { requestId, subject: contract.subject });
    const started = performance.now();
    let reply: Uint8Array;
    let code = OK;
    try {
      const envelope = envelopeSchema.safeParse(msg.json());
      if (!envelope.success) {
        log.error({ issues: envelope.error.issues }, "malformed request envelope");
        throw internalError();
      }
      const { realm, actor, client, params } = envelope.data;
      const parsed = parseParams(contract.params, (params ?? {}) as Record<string, unknown>);
      const data = await withEventAcks(async () => handler(parsed, { realm, actor, client, requestId, log, parked }));
      if (this.opts.validateReplies) {
        const checked = contract.reply.safeParse(data instanceof RawJson ? JSON.parse(data.json) : data);
        if (!checked.success) {
          log.error({ issues: checked.error.issues }, "reply breaks its contract");
          throw internalError();
        }
      }
      reply =
        data instanceof RawJson
          ? Buffer.concat([OK_PREFIX_BYTES, data.bytes, CLOSE_BRACE])
          : // a handler with nothing to say replies with an empty object
            encoder.encode(`${OK_PREFIX}${JSON.stringify(data) ?? "{}"}}`);
    } catch (err) {
      let error: ZulipError;
      if (err instanceof ZulipError) {
        log.debug({ code: err.code, reason: err.message }, "request refused");
        error = err;
      } else if (isTransientFailure(err)) {
        log.warn({ err }, "handler failed: database or NATS out of reach");
        error = serviceUnavailable(`Service unavailable: ${this.opts.service}`);
      } else {
        log.error({ err }, "handler failed");
        error = internalError();
      }
      code = error.code;
      reply = encode({ ok: false, error: error.toWire() });
    }
    if (msg.reply) respond(msg, reply);
    const ms = Math.round((performance.now() - started) * 10) / 10;
    // an operation given a longer bus timeout (a long-poll, a topic move) is slow by design; anything else
    // this slow is worth seeing in the logs
    if (ms > SLOW_REQUEST_MS && contract.timeoutMs === undefined) log.warn({ ok: code === OK, ms }, "slow request");
    else log.debug({ ok: code === OK, ms }, "handled");
    return code;
  }

  /** Tells the caller of a keepAlive request, now and every `everyMs`, that this instance works on it. */
  private keepAlive(msg: IncomingRequest, everyMs: number): NodeJS.Timeout {
    respond(msg, KEEPALIVE);
    return setInterval(() => respond(msg, KEEPALIVE), everyMs);
  }

  /** Stop taking requests, finish the accepted ones. The connection is the caller's to close. */
  async drain(): Promise<void> {
    // drains every endpoint's subscription and the $SRV ones: the instance leaves discovery too
    await this.discovery.stop().catch(() => undefined);
    while (this.accepted.size > 0) await Promise.allSettled([...this.accepted]);
  }
}
