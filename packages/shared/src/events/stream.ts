import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstreamManager } from "@nats-io/jetstream";

/**
 * Every domain event (`events.>`) is published into this JetStream stream, so
 * that one published while no notifications instance runs waits for one
 * instead of being lost. Interest retention: an event is deleted once the
 * consumers have acknowledged it; the limits bound what piles up while they
 * are down (the oldest go first).
 */
export const DOMAIN_EVENTS_STREAM = "DOMAIN_EVENTS";

/** notifications' durable consumer: its instances share it, each event goes to one of them. */
export const FANOUT_CONSUMER = "notifications-fanout";

/** How long an unacknowledged delivery waits before the event is delivered again (to any instance). */
const ACK_WAIT_SECONDS = 30;

export interface DomainEventLimits {
  maxAgeSeconds: number;
  maxBytes: number;
}

/**
 * Creates the stream and its consumer, or updates the stream's limits. Every
 * service calls it before it publishes: with interest retention an event
 * published before the consumer exists would be dropped, so both are made
 * together. Concurrent calls are harmless.
 */
export async function ensureDomainEventStream(nc: NatsConnection, limits: DomainEventLimits): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    subjects: ["events.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Interest,
    max_age: limits.maxAgeSeconds * 1e9,
    max_bytes: limits.maxBytes,
  };
  try {
    await jsm.streams.info(DOMAIN_EVENTS_STREAM);
    await jsm.streams.update(DOMAIN_EVENTS_STREAM, config);
  } catch {
    await jsm.streams.add({ name: DOMAIN_EVENTS_STREAM, ...config }).catch(async (err: unknown) => {
      // another service created it in between
      await jsm.streams.info(DOMAIN_EVENTS_STREAM).catch(() => Promise.reject(err));
    });
  }
  await jsm.consumers.add(DOMAIN_EVENTS_STREAM, {
    durable_name: FANOUT_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ACK_WAIT_SECONDS * 1e9,
    max_ack_pending: 10_000,
  });
}
