import type { NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  PubHeaders,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import type { Logger } from "pino";
import { REQUEST_ID_HEADER } from "../bus";
import { metricsOf } from "../metrics";
import { configureThroughElection, ensureStream, streamWhenLed } from "../jetstream";
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
  const jsm = await jetstreamManager(nc);
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

/** A failed delivery is tried again after this (the database or NATS was out of reach). */
const REDELIVERY_DELAY_MS = 1000;
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
  const metrics = metricsOf(nc);
  const labels = { consumer: consumer.name };
  const waiting = metrics.eventConsumerPending.labels(labels);
  const lag = metrics.eventConsumeLagSeconds.labels(labels);
  const count = (outcome: "ok" | "retry" | "dropped") => metrics.eventsConsumed.inc({ ...labels, outcome });
  const handle = (m: JsMsg) => {
    // what the consumer still holds beyond this delivery, as the server counted at sending it
    waiting.set(m.info.pending);
    const handler = handlers.get(m.subject);
    if (!handler) return m.ack();
    const parsed = handler.def.payload.safeParse(m.json());
    if (!parsed.success) {
      log.error({ subject: m.subject, issues: parsed.error.issues }, "malformed event dropped");
      count("dropped");
      return m.term();
    }
    const requestId = m.headers?.get(REQUEST_ID_HEADER) || undefined;
    const eventId = m.headers?.get(PubHeaders.MsgIdHdr) || `${DOMAIN_EVENTS_STREAM}.${m.seq}`;
    const done = handler.handle(parsed.data, { eventId, requestId, seq: m.seq }).then(
      () => {
        m.ack();
        // from the stream's store of the event (its publish) to the end of its handling
        lag.observe(Math.max(0, Date.now() - m.time.getTime()) / 1000);
        count("ok");
      },
      (err: unknown) => {
        log.error({ err, subject: m.subject, consumer: consumer.name }, "event not handled: delivered again later");
        m.nak(REDELIVERY_DELAY_MS);
        count("retry");
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
