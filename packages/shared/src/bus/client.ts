import {
  NoRespondersError,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from "@nats-io/transport-node";
import { z } from "zod";
import type { Contract, Envelope, ParamsIn, ReplyOf } from "../contract";
import { ZulipError, serviceUnavailable, wireErrorSchema } from "../errors";
import { metricsOf, type ServiceMetrics } from "../metrics";
import { watchOf, type ConnectionWatch } from "./connection-watch";
import type { CallContext } from "./context";
import { RawJson } from "./raw-json";
import { PIECES_HEADER, PIECES_HELD_HEADER, PieceCache } from "./shared-pieces";
import { DEADLINE_HEADER, KEEPALIVE_SILENCE_INTERVALS, OK_PREFIX_BYTES, REQUEST_ID_HEADER, encode } from "./wire";

const wireErrorReplySchema = z.object({ ok: z.literal(false), error: wireErrorSchema });

export interface BusClientOptions {
  /** Used when the contract sets no timeout of its own. */
  timeoutMs?: number;
  /** Check each reply against the contract's reply schema (development and tests). */
  checkReplies?: boolean;
  /**
   * Keep the shared pieces replies are sent with, up to this many bytes, and be sent references
   * to them instead (shared-pieces.ts): for a caller that passes many large replies on (the gateway).
   */
  pieceCacheBytes?: number;
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
  private readonly pieces: PieceCache | undefined;

  constructor(
    private readonly nc: NatsConnection,
    opts: BusClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.checkReplies = opts.checkReplies ?? true;
    this.watch = watchOf(nc);
    this.metrics = metricsOf(nc);
    this.pieces = opts.pieceCacheBytes ? new PieceCache(opts.pieceCacheBytes) : undefined;
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
    const realmId = ctx.realm?.id;
    const { held, done } =
      this.pieces && realmId !== undefined
        ? contract.sharedPieces
          ? await this.pieces.heldOnceFetched(realmId)
          : { held: this.pieces.held(realmId) }
        : { held: undefined };
    try {
      return await this.sendHolding(contract, params, ctx, held);
    } finally {
      done?.();
    }
  }

  /** A request naming the pieces it holds for the organization (if it keeps pieces at all). */
  private async sendHolding(
    contract: Contract,
    params: unknown,
    ctx: CallContext,
    held: ReadonlyMap<string, Buffer> | undefined,
  ): Promise<RawJson> {
    const realmId = ctx.realm?.id;
    const timeout = contract.timeoutMs ?? this.timeoutMs;
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, ctx.requestId);
    h.set(DEADLINE_HEADER, String(Date.now() + timeout));
    if (held) h.set(PIECES_HELD_HEADER, [...held.keys()].join(","));
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
      const placement = held && msg.headers?.get(PIECES_HEADER);
      if (!placement) return new RawJson(body.subarray(OK_PREFIX_BYTES.length, body.length - 1));
      const { chunks, ...bytes } = this.pieces!.assemble(realmId!, body, placement, held);
      this.metrics.sharedPieceBytes.inc({ operation: contract.subject, source: "attached" }, bytes.attached);
      this.metrics.sharedPieceBytes.inc({ operation: contract.subject, source: "held" }, bytes.held);
      // the first chunk holds the prefix, the last the closing brace
      chunks[0] = chunks[0]!.subarray(OK_PREFIX_BYTES.length);
      chunks[chunks.length - 1] = chunks.at(-1)!.subarray(0, -1);
      return new RawJson(chunks.filter((c) => c.length > 0));
    }
    throw ZulipError.fromWire(wireErrorReplySchema.parse(msg.json()).error);
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
