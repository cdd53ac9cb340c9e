import { headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Actor, RealmRef } from "./actor";
import { healthContract, type Contract, type ParamsOf, type ReplyOf } from "./contract";
import { ZulipError, internalError, unauthorized, type WireError } from "./errors";
import { parseParams } from "./params";

export const REQUEST_ID_HEADER = "x-request-id";

type WireReply = { ok: true; data: unknown } | { ok: false; error: WireError };

export interface CallContext {
  realm: RealmRef | null;
  actor: Actor | null;
  requestId: string;
}

export interface HandlerContext extends CallContext {
  log: Logger;
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

export type Handler<C extends Contract> = (
  params: ParamsOf<C>,
  ctx: HandlerContext,
) => Promise<ReplyOf<C>> | ReplyOf<C>;

const encoder = new TextEncoder();
const encode = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));

/** The caller's end: typed requests with timeout; "no responders" → 503, timeout → 504. */
export class BusClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly defaultTimeoutMs = 10_000,
  ) {}

  async request<C extends Contract>(contract: C, params: unknown, ctx: CallContext): Promise<ReplyOf<C>> {
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, ctx.requestId);
    let msg: Msg;
    try {
      msg = await this.nc.request(contract.subject, encode({ realm: ctx.realm, actor: ctx.actor, params }), {
        timeout: contract.timeoutMs ?? this.defaultTimeoutMs,
        headers: h,
      });
    } catch (err) {
      throw busFailure(err, contract.subject);
    }
    const reply = msg.json<WireReply>();
    if (!reply.ok) throw ZulipError.fromWire(reply.error);
    return reply.data as ReplyOf<C>;
  }
}

function busFailure(err: unknown, subject: string): ZulipError {
  const e = err as Error & { isNoResponders?: () => boolean; cause?: unknown };
  const service = subject.split(".")[0];
  if (e.isNoResponders?.() || (e.cause as Error | undefined)?.name === "NoRespondersError") {
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
  /** Requests handled at once by this instance; more wait in NATS' socket buffer. */
  concurrency?: number;
  /** Check replies against the contract (development and tests; off in production for speed). */
  validateReplies?: boolean;
}

/**
 * The callee's end: one queue-group subscription per contract (instances share
 * the load), handlers run concurrently up to `concurrency`, every request gets a
 * reply (result or error), and drain() finishes in-flight work before returning.
 */
export class BusServer {
  private readonly subs: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private waiting: Array<() => void> = [];
  private readonly concurrency: number;

  constructor(private readonly opts: BusServerOptions) {
    this.concurrency = opts.concurrency ?? 256;
    this.handle(healthContract(opts.service), () => ({ service: opts.service }));
  }

  handle<C extends Contract>(contract: C, handler: Handler<C>): this {
    const sub = this.opts.nc.subscribe(contract.subject, {
      queue: this.opts.service,
      callback: (err, msg) => {
        if (err) {
          this.opts.logger.error({ err, subject: contract.subject }, "subscription error");
          return;
        }
        this.track(this.serve(contract, handler as Handler<Contract>, msg));
      },
    });
    this.subs.push(sub);
    return this;
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      this.waiting.shift()?.();
    });
  }

  private async slot(): Promise<void> {
    // Callback subscriptions deliver without waiting; bound the work we start at once.
    while (this.inFlight.size > this.concurrency) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private async serve(contract: Contract, handler: Handler<Contract>, msg: Msg): Promise<void> {
    await this.slot();
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    const log = this.opts.logger.child({ requestId, subject: contract.subject });
    const started = performance.now();
    let reply: WireReply;
    try {
      const envelope = msg.json<{ realm: RealmRef | null; actor: Actor | null; params: unknown }>();
      const params = parseParams(contract.params, (envelope.params ?? {}) as Record<string, unknown>);
      const data = await handler(params, { realm: envelope.realm, actor: envelope.actor, requestId, log });
      if (this.opts.validateReplies) {
        const checked = contract.reply.safeParse(data);
        if (!checked.success) {
          log.error({ issues: checked.error.issues }, "reply breaks its contract");
          throw internalError();
        }
      }
      reply = { ok: true, data };
    } catch (err) {
      if (err instanceof ZulipError) {
        log.debug({ code: err.code, reason: err.message }, "request refused");
        reply = { ok: false, error: err.toWire() };
      } else {
        log.error({ err }, "handler failed");
        reply = { ok: false, error: internalError().toWire() };
      }
    }
    if (msg.reply) msg.respond(encode(reply));
    log.debug({ ok: reply.ok, ms: Math.round((performance.now() - started) * 10) / 10 }, "handled");
  }

  /** Stop taking requests, finish the ones in flight. The connection is the caller's to close. */
  async drain(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => undefined)));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

/** Fire-and-forget publish (events), carrying the request id for log correlation. */
export function publishJson(nc: NatsConnection, subject: string, payload: unknown, requestId?: string): void {
  const h = natsHeaders();
  if (requestId) h.set(REQUEST_ID_HEADER, requestId);
  nc.publish(subject, encode(payload), { headers: h });
}
