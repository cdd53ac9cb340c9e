import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import type { Endpoint } from "@nats-io/services";
import { randomUUID } from "node:crypto";
import { lazyChild, type Logger } from "../logger";
import { envelopeSchema, healthContract, type Contract } from "../contract";
import { withDeadline } from "../deadline";
import { registerDiscovery, type Service } from "../discovery";
import { withRequestScope, type DbTime } from "../request-scope";
import { ZulipError, internalError, isTransientFailure, serviceUnavailable } from "../errors";
import { metricsOf, type ServiceMetrics } from "../metrics";
import { parseParams } from "../params";
import type { Handler, HandlerContext } from "./context";
import { CLOSE_BRACE, RawJson } from "./raw-json";
import { PIECES_HEADER, PIECES_HELD_HEADER, framedWithPieces } from "./shared-pieces";
import { DEADLINE_HEADER, KEEPALIVE, OK_PREFIX, OK_PREFIX_BYTES, REQUEST_ID_HEADER, encode, encoder } from "./wire";

/** The ids of the pieces a request says its caller holds. */
const heldPieces = (headers: MsgHdrs): Set<string> =>
  new Set(headers.get(PIECES_HELD_HEADER).split(",").filter(Boolean));

/** A reply on a connection that closed meanwhile (the instance stopping) has no one to go to: dropped. */
function respond(msg: Pick<Msg, "respond">, data: Uint8Array, headers?: MsgHdrs): void {
  try {
    msg.respond(data, headers && { headers });
  } catch {
    // the caller hears nothing and gives up (timeout, or the keep-alive silence)
  }
}

/** A request handled slower than this is logged as a warning (long-polls aside). */
const SLOW_REQUEST_MS = 1_000;

/** Milliseconds as logged: to a tenth. */
const tenths = (ms: number) => Math.round(ms * 10) / 10;

/** A request's database time as logged. */
const roundedDbTime = ({ ms, commands, slowest }: DbTime) => ({
  ms: tenths(ms),
  commands,
  ...(slowest && { slowest: { ...slowest, ms: tenths(slowest.ms) } }),
});

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
    /** how long the handler's events took to be stored after it returned (withRequestScope) */
    let acksMs: number | undefined;
    /** the database commands the handler awaited (addDbTime) */
    const db: DbTime = { ms: 0, commands: 0 };
    let reply: Uint8Array;
    let replyHeaders: MsgHdrs | undefined;
    let code = OK;
    try {
      const envelope = envelopeSchema.safeParse(msg.json());
      if (!envelope.success) {
        log.error({ issues: envelope.error.issues }, "malformed request envelope");
        throw internalError();
      }
      const { realm, actor, client, params } = envelope.data;
      const parsed = parseParams(contract.params, (params ?? {}) as Record<string, unknown>);
      let handled = 0;
      const data = await withRequestScope(db, async () => {
        const result = await handler(parsed, { realm, actor, client, requestId, log, parked });
        handled = performance.now();
        return result;
      });
      acksMs = tenths(performance.now() - handled);
      if (this.opts.validateReplies) {
        const checked = contract.reply.safeParse(data instanceof RawJson ? JSON.parse(data.json) : data);
        if (!checked.success) {
          log.error({ issues: checked.error.issues }, "reply breaks its contract");
          throw internalError();
        }
      }
      // a caller that takes shared pieces gets the ones it holds as references (shared-pieces.ts)
      const withPieces =
        data instanceof RawJson && msg.headers?.has(PIECES_HELD_HEADER)
          ? framedWithPieces(data, heldPieces(msg.headers), OK_PREFIX_BYTES, CLOSE_BRACE)
          : null;
      if (withPieces) {
        reply = withPieces.payload;
        replyHeaders = natsHeaders();
        replyHeaders.set(PIECES_HEADER, withPieces.placement);
      } else {
        reply =
          data instanceof RawJson
            ? data.framed(OK_PREFIX_BYTES, CLOSE_BRACE)
            : // a handler with nothing to say replies with an empty object
              encoder.encode(`${OK_PREFIX}${JSON.stringify(data) ?? "{}"}}`);
      }
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
    if (msg.reply) respond(msg, reply, replyHeaders);
    const ms = tenths(performance.now() - started);
    // an operation given a longer bus timeout (a long-poll, a topic move) is slow by design; anything else
    // this slow is worth seeing in the logs
    if (ms > SLOW_REQUEST_MS && contract.timeoutMs === undefined)
      log.warn({ ok: code === OK, ms, acksMs, db: roundedDbTime(db) }, "slow request");
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
