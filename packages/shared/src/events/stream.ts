import type { NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  PubHeaders,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import type { Logger } from "pino";
import { REQUEST_ID_HEADER } from "../bus";
import { ensureStream } from "../jetstream";
import type { EventDefinition } from "./define";
import { userSettings } from "./identity";
import { profileFieldValuesDropped } from "./realm-config";

/**
 * Every domain event (`events.>`) is published into this JetStream stream, so
 * that one published while no notifications instance runs waits for one
 * instead of being lost. Interest retention: an event is deleted once the
 * consumers have acknowledged it; the limits bound what piles up while they
 * are down (the oldest go first).
 */
export const DOMAIN_EVENTS_STREAM = "DOMAIN_EVENTS";

/**
 * The durable consumers: each is shared by the instances of the service that
 * does the work (each event goes to one of them) and holds the events it has
 * not acknowledged while none runs. notifications turns every event into
 * queue events; the others each do one piece of work another service's event
 * asks for.
 */
export const DURABLE_CONSUMERS = {
  fanout: { name: "notifications-fanout", subjects: "events.>" },
  profileFieldValues: { name: "identity-profile-field-values", subjects: profileFieldValuesDropped.subject },
  draftsSynchronization: { name: "messaging-drafts-synchronization", subjects: userSettings.subject },
} as const;
export type DurableConsumer = (typeof DURABLE_CONSUMERS)[keyof typeof DURABLE_CONSUMERS];

/** How long an unacknowledged delivery waits before the event is delivered again (to any instance). */
const ACK_WAIT_SECONDS = 30;

export interface DomainEventStreamConfig {
  maxAgeSeconds: number;
  maxBytes: number;
  /** NATS_STREAM_REPLICAS: copies on that many cluster nodes (the durable consumers follow the stream's count). */
  replicas: number;
}

/**
 * Creates the stream and its consumer, or updates the stream's limits. Every
 * service calls it before it publishes: with interest retention an event
 * published before the consumer exists would be dropped, so both are made
 * together. Concurrent calls are harmless.
 */
export async function ensureDomainEventStream(nc: NatsConnection, limits: DomainEventStreamConfig): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, {
    name: DOMAIN_EVENTS_STREAM,
    subjects: ["events.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Interest,
    max_age: limits.maxAgeSeconds * 1e9,
    max_bytes: limits.maxBytes,
    num_replicas: limits.replicas,
  });
  for (const consumer of Object.values(DURABLE_CONSUMERS)) {
    await jsm.consumers.add(DOMAIN_EVENTS_STREAM, {
      durable_name: consumer.name,
      filter_subject: consumer.subjects,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ACK_WAIT_SECONDS * 1e9,
      max_ack_pending: 10_000,
    });
  }
}

/** A failed delivery is tried again after this (the database or NATS was out of reach). */
const REDELIVERY_DELAY_MS = 1000;
/** Events pulled ahead of their handling. */
const PULL_BATCH = 256;

/**
 * What handles one subject's events for a durable consumer. `eventId` names
 * the event for good (the message id it was published with): unlike its
 * stream sequence, which a NATS restart can hand out again once acknowledged
 * events are gone, it never names another event.
 */
export interface DurableHandler {
  def: EventDefinition;
  handle(payload: unknown, meta: { eventId: string; requestId?: string }): Promise<void>;
}

/**
 * Consumes a durable consumer: each event is handed to the handler of its
 * subject and acknowledged once that resolves, delivered again (to any
 * instance) when it rejects or its instance dies first; handlers must be
 * idempotent. Events of subjects without a handler are acknowledged at once;
 * malformed ones are logged and dropped.
 */
export async function consumeDurably(
  nc: NatsConnection,
  consumer: DurableConsumer,
  handlers: ReadonlyMap<string, DurableHandler>,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const pending = new Set<Promise<void>>();
  const handle = (m: JsMsg) => {
    const handler = handlers.get(m.subject);
    if (!handler) return m.ack();
    const parsed = handler.def.payload.safeParse(m.json());
    if (!parsed.success) {
      log.error({ subject: m.subject, issues: parsed.error.issues }, "malformed event dropped");
      return m.term();
    }
    const requestId = m.headers?.get(REQUEST_ID_HEADER) || undefined;
    const eventId = m.headers?.get(PubHeaders.MsgIdHdr) || `${DOMAIN_EVENTS_STREAM}.${m.seq}`;
    const done = handler.handle(parsed.data, { eventId, requestId }).then(
      () => m.ack(),
      (err: unknown) => {
        log.error({ err, subject: m.subject, consumer: consumer.name }, "event not handled: delivered again later");
        m.nak(REDELIVERY_DELAY_MS);
      },
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
  };
  const messages = await (
    await jetstream(nc).consumers.get(DOMAIN_EVENTS_STREAM, consumer.name)
  ).consume({
    max_messages: PULL_BATCH,
    callback: handle,
  });
  return {
    stop: async () => {
      await messages.close();
      await Promise.allSettled([...pending]);
    },
  };
}
