import type { NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  PubHeaders,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
} from "@nats-io/jetstream";
import type { Logger } from "pino";
import { REQUEST_ID_HEADER } from "../bus";
import { metricsOf } from "../metrics";
import { configureThroughElection, ensureStream, streamManager, streamWhenLed } from "../jetstream";
import { consumeDurableLoop, type SubjectHandler } from "../jetstream-consumer";
import type { EventDefinition } from "./define";
import { userGroup, userGroupsBackfill, userSettings } from "./identity";
import {
  channelFacts,
  linkPreviewsWanted,
  messageFlagsUpdated,
  messageSent,
  messageUpdated,
  messagesDeleted,
  subscriptionFacts,
} from "./messaging";
import { profileFieldValuesDropped } from "./realm-config";

/**
 * Every domain event (`events.>`) is published into this JetStream stream, so
 * that one published while no notifications instance runs waits for one
 * instead of being lost. Limits retention: events stay for the configured age
 * and size (the oldest go first), consumed or not; each durable consumer keeps
 * its own place. Not interest retention, which would delete an event once
 * consumed: on nats-server 2.9 an interest stream drops events published
 * while it recovers after a restart, before its consumers are loaded (the
 * publisher is told they were stored): docs/adr/0013-durable-domain-events.md.
 */
export const DOMAIN_EVENTS_STREAM = "DOMAIN_EVENTS";

/**
 * The durable consumers: each is shared by the instances of the service that
 * does the work (each event goes to one of them) and holds the events it has
 * not acknowledged while none runs. notifications turns every event into
 * queue events; the others each do one piece of work another service's event
 * asks for, or keep a service's copy of another's data (EventFedCopy).
 */
export const DURABLE_CONSUMERS = {
  fanout: { name: "notifications-fanout", subjects: "events.>" },
  profileFieldValues: { name: "identity-profile-field-values", subjects: profileFieldValuesDropped.subject },
  draftsSynchronization: { name: "messaging-drafts-synchronization", subjects: userSettings.subject },
  linkPreviews: { name: "messaging-link-previews", subjects: linkPreviewsWanted.subject },
  realmConfigChannels: { name: "realm-config-channel-copy", subjects: channelFacts.subject },
  realmConfigUserGroups: { name: "realm-config-user-group-copy", subjects: userGroup.subject },
  realmConfigUserGroupsBackfill: { name: "realm-config-user-group-backfill", subjects: userGroupsBackfill.subject },
  identityChannels: { name: "identity-channel-copy", subjects: channelFacts.subject },
  identitySubscriptions: { name: "identity-subscription-copy", subjects: subscriptionFacts.subject },
  missedMessages: { name: "notifications-missed-messages", subjects: messageSent.subject },
  mentionsAddedByEdits: { name: "notifications-edit-mentions", subjects: messageUpdated.subject },
  pushRemovalsOnRead: { name: "notifications-push-removal-read", subjects: messageFlagsUpdated.subject },
  pushRemovalsOnDelete: { name: "notifications-push-removal-deleted", subjects: messagesDeleted.subject },
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
 * Creates the stream and its consumers, or updates the stream's limits. Every
 * service calls it before it publishes, so the consumers exist from the
 * stream's first event on. Concurrent calls are harmless.
 */
export async function ensureDomainEventStream(nc: NatsConnection, limits: DomainEventStreamConfig): Promise<void> {
  const jsm = await streamManager(nc);
  const existing = await streamWhenLed(jsm, DOMAIN_EVENTS_STREAM);
  if (existing && existing.config.retention !== RetentionPolicy.Limits) {
    await dropInterestStream(jsm, existing.state.messages);
  }
  await ensureStream(jsm, {
    name: DOMAIN_EVENTS_STREAM,
    subjects: ["events.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: limits.maxAgeSeconds * 1e9,
    max_bytes: limits.maxBytes,
    num_replicas: limits.replicas,
  });
  for (const consumer of Object.values(DURABLE_CONSUMERS)) {
    await configureThroughElection(() =>
      jsm.consumers.add(DOMAIN_EVENTS_STREAM, {
        durable_name: consumer.name,
        filter_subject: consumer.subjects,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_SECONDS * 1e9,
        max_ack_pending: 10_000,
      }),
    );
  }
}

/**
 * A stream an earlier version made with interest retention, which NATS cannot
 * change in place: deleted when it holds nothing (every event consumed, as on
 * any system at rest), to be made anew; else left for its consumers to drain.
 */
async function dropInterestStream(jsm: JetStreamManager, pending: number): Promise<void> {
  if (pending > 0) {
    throw new Error(
      `the ${DOMAIN_EVENTS_STREAM} stream (interest retention, made by an earlier version) holds ${pending} unconsumed events: run the earlier version until its consumers have taken them, then start this one`,
    );
  }
  await jsm.streams.delete(DOMAIN_EVENTS_STREAM);
}

/** Events pulled ahead of their handling. */
const PULL_BATCH = 256;

/**
 * What handles one subject's events for a durable consumer. `eventId` names
 * the event for good: the message id it was published with, which a
 * publisher resuming failed work gives again (a message's delivery), so that
 * a second copy stored past the stream's duplicate window is still known.
 * `seq` is the event's place in the stream: later events have higher ones,
 * however the consumer's instances interleave their handling.
 */
export interface DurableHandler {
  def: EventDefinition;
  handle(payload: unknown, meta: { eventId: string; requestId?: string; seq: number }): Promise<void>;
}

/**
 * Consumes a durable consumer of the domain events (consumeDurableLoop):
 * each event is handed to the handler of its subject and acknowledged once
 * that resolves; handlers must be idempotent. Events of subjects without a
 * handler are acknowledged at once; malformed ones are logged and dropped.
 */
export async function consumeDurably(
  nc: NatsConnection,
  consumer: DurableConsumer,
  handlers: ReadonlyMap<string, DurableHandler>,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const metrics = metricsOf(nc);
  const bySubject = new Map<string, SubjectHandler>(
    [...handlers].map(([subject, handler]) => [
      subject,
      {
        schema: handler.def.payload,
        handle: (payload, m) =>
          handler.handle(payload, {
            eventId: m.headers?.get(PubHeaders.MsgIdHdr) || `${DOMAIN_EVENTS_STREAM}.${m.seq}`,
            requestId: m.headers?.get(REQUEST_ID_HEADER) || undefined,
            seq: m.seq,
          }),
      },
    ]),
  );
  return consumeDurableLoop(nc, {
    stream: DOMAIN_EVENTS_STREAM,
    consumer: consumer.name,
    handlers: bySubject,
    pullBatch: PULL_BATCH,
    metrics: {
      outcomes: metrics.eventsConsumed,
      labels: { consumer: consumer.name },
      pending: metrics.eventConsumerPending,
      lagSeconds: metrics.eventConsumeLagSeconds,
    },
    log,
  });
}
