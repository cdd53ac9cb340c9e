import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { jetstream, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import type { Logger } from "pino";
import type { Counter, Gauge, Histogram } from "prom-client";
import type { z } from "zod";
import { configureThroughElection } from "./jetstream";

/**
 * What became of a delivery: ok (handled, acknowledged), retry (the handler
 * failed: delivered again after a back-off), dropped (malformed, or its last
 * try failed), failed (the handler's error says no try can succeed).
 */
export type ConsumeOutcome = "ok" | "retry" | "dropped" | "failed";

/** What handles the deliveries of one subject: the payload is parsed with `schema` first. */
export interface SubjectHandler {
  schema: z.ZodType;
  handle(payload: unknown, delivery: JsMsg): Promise<void>;
}

export interface DurableConsumerLoop {
  stream: string;
  /** the durable consumer's name, also the `consumer` label of its metrics */
  consumer: string;
  /** by subject; a delivery of a subject without a handler is acknowledged unhandled */
  handlers: ReadonlyMap<string, SubjectHandler>;
  /** deliveries pulled ahead of their handling */
  pullBatch: number;
  /** the consumer's max_deliver: the last try's failure drops the item rather than naks it */
  maxDeliveries?: number;
  /** errors no later try can get past: the item is dropped at once */
  isPermanent?(err: unknown): boolean;
  metrics: {
    /** counted with `labels` and `outcome` */
    outcomes: Counter<string>;
    labels: Record<string, string>;
    /** what the consumer still holds beyond a delivery, as the server counted at sending it */
    pending?: Gauge<string>;
    /** from the stream's store of an item to the end of its handling */
    lagSeconds?: Histogram<string>;
  };
  log: Logger;
}

/** A failed item is delivered again after 1 s, doubled at each failure up to 5 minutes. */
export const retryDelayMs = (deliveryCount: number): number =>
  Math.min(1000 * 2 ** Math.max(0, deliveryCount - 1), 5 * 60_000);

/** How long a stop waits for the handlers under way before it hands their items back. */
const STOP_GRACE_MS = 5_000;

/**
 * Consumes a durable JetStream consumer: each delivery is parsed and handed
 * to its subject's handler, acknowledged once that resolves and delivered
 * again (to any instance) after a back-off when it rejects, or after the
 * consumer's ack wait when the instance dies first; handlers must be
 * idempotent. Malformed items are logged and dropped.
 *
 * A stop hands back at once what this instance holds and will not finish:
 * deliveries that reach it while it stops, and items whose handling outlasts
 * STOP_GRACE_MS, are refused without delay, so another instance takes them
 * now rather than after the ack wait.
 */
export async function consumeDurableLoop(
  nc: NatsConnection,
  loop: DurableConsumerLoop,
): Promise<{ stop(): Promise<void> }> {
  const { stream, consumer, handlers, metrics, log } = loop;
  const count = (outcome: ConsumeOutcome) => metrics.outcomes.inc({ ...metrics.labels, outcome });
  const pending = metrics.pending?.labels(metrics.labels);
  const lag = metrics.lagSeconds?.labels(metrics.labels);
  /** handlings under way, each with whether a stop already handed its item back */
  const inFlight = new Map<JsMsg, { handedBack: boolean; done: Promise<void> }>();
  let stopping = false;

  const failed = (m: JsMsg, err: unknown) => {
    const tries = m.info.deliveryCount;
    const fields = { err, subject: m.subject, consumer, tries };
    if (loop.isPermanent?.(err)) {
      log.error(fields, "item refused for good: dropped");
      count("failed");
      m.term();
    } else if (loop.maxDeliveries !== undefined && tries >= loop.maxDeliveries) {
      log.error(fields, "item dropped after its last try");
      count("dropped");
      m.term();
    } else {
      const delay = retryDelayMs(tries);
      log.warn({ ...fields, retryInMs: delay }, "item not handled: delivered again later");
      count("retry");
      m.nak(delay);
    }
  };

  const onDelivery = (m: JsMsg) => {
    if (stopping) return m.nak();
    pending?.set(m.info.pending);
    const handler = handlers.get(m.subject);
    if (!handler) return m.ack();
    const parsed = handler.schema.safeParse(jsonOf(m));
    if (!parsed.success) {
      log.error({ subject: m.subject, consumer, issues: parsed.error.issues }, "malformed item dropped");
      count("dropped");
      return m.term();
    }
    const state = { handedBack: false, done: Promise.resolve() };
    state.done = handler
      .handle(parsed.data, m)
      .then(
        () => {
          if (state.handedBack) return;
          m.ack();
          lag?.observe(Math.max(0, Date.now() - m.time.getTime()) / 1000);
          count("ok");
        },
        (err: unknown) => {
          if (!state.handedBack) failed(m, err);
        },
      )
      // the connection closed under the answer: the server delivers the item again after the ack wait
      .catch((err: unknown) =>
        log.warn({ err, subject: m.subject, consumer }, "item's outcome not told to the server"),
      );
    inFlight.set(m, state);
    void state.done.finally(() => inFlight.delete(m));
  };

  // the consumer's info, asked again through a NATS restart or election as the service starts
  const messages = await (
    await configureThroughElection(() => jetstream(nc).consumers.get(stream, consumer))
  ).consume({
    max_messages: loop.pullBatch,
    callback: onDelivery,
  });
  return {
    stop: async () => {
      stopping = true;
      await stopPulling(messages);
      const settled = Promise.allSettled([...inFlight.values()].map((s) => s.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(timer);
      for (const [m, state] of inFlight) {
        state.handedBack = true;
        m.nak();
      }
    },
  };
}

/** The payload's JSON; what is not JSON is undefined, which every schema refuses as malformed. */
function jsonOf(m: JsMsg): unknown {
  try {
    return m.json();
  } catch {
    return undefined;
  }
}

/**
 * Ends the pull without losing a delivery on the way: the subscription is
 * drained (unsubscribed, then read until a round trip to the server ends), so
 * the deliveries the server sent before it saw the unsubscription still reach
 * the callback, which hands them back. Closing alone would drop them, and the
 * server would deliver them again only after the ack wait. The pull's
 * subscription is not part of the client's typed API, hence the look-up.
 */
async function stopPulling(messages: ConsumerMessages): Promise<void> {
  const sub = (messages as ConsumerMessages & { sub?: Subscription }).sub;
  if (sub && !sub.isClosed()) await sub.drain().catch(() => undefined);
  await messages.close();
}
