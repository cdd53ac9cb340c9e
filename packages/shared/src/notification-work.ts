import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, jetstream, PubHeaders, type JsMsg } from "@nats-io/jetstream";
import type { Logger } from "pino";
import type { z } from "zod";
import { notificationWorkSubjects } from "./contracts/notifications/missed-message";
import { NOTIFICATION_WORK_STREAM, notificationWorkStream } from "./contracts/notifications/notification-work";
import { configureThroughElection, ensureStream, streamManager } from "./jetstream";
import { consumeDurableLoop } from "./jetstream-consumer";
import { metricsOf } from "./metrics";

/** An item taken and neither acknowledged nor refused within this is delivered again. */
const ACK_WAIT_SECONDS = 30;

/** The durable consumer of missed-message emails, shared by messaging's instances. */
export const EMAIL_WORK_CONSUMER = { name: "notification-email", subject: notificationWorkSubjects.email } as const;

/** The durable consumer of weekly digests, shared by messaging's instances. */
export const DIGEST_WORK_CONSUMER = { name: "notification-digest", subject: notificationWorkSubjects.digest } as const;

/** The durable consumer of collected event queues, shared by notifications' instances. */
export const QUEUE_COLLECTED_WORK_CONSUMER = {
  name: "notification-queue-collected",
  subject: notificationWorkSubjects.queueCollected,
  // a collected queue may hold thousands of events to read back: a few at a time per instance
  pullBatch: 4,
} as const;

export type NotificationWorkKind = keyof typeof notificationWorkSubjects;

/** Creates the stream and its consumers (messaging's email and digest, notifications' collected queues), or updates them; concurrent calls are harmless. */
export async function ensureNotificationWorkStream(nc: NatsConnection, replicas: number): Promise<void> {
  const jsm = await streamManager(nc);
  await ensureStream(jsm, notificationWorkStream(replicas));
  for (const consumer of [EMAIL_WORK_CONSUMER, DIGEST_WORK_CONSUMER, QUEUE_COLLECTED_WORK_CONSUMER]) {
    await configureThroughElection(() =>
      jsm.consumers.add(NOTIFICATION_WORK_STREAM, {
        durable_name: consumer.name,
        filter_subject: consumer.subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_SECONDS * 1e9,
        max_deliver: -1,
        max_ack_pending: 10_000,
      }),
    );
  }
}

/**
 * Queues one item; `id` names it for the stream's duplicate check, so that a
 * decision made twice (its domain event delivered again) is queued once.
 */
export async function publishNotificationWork(
  nc: NatsConnection,
  kind: NotificationWorkKind,
  payload: unknown,
  id: string,
): Promise<void> {
  await jetstream(nc).publish(notificationWorkSubjects[kind], JSON.stringify(payload), { msgID: id });
  metricsOf(nc).notificationWorkPublished.inc({ kind });
}

/** The id publishNotificationWork gave the item; the stream's sequence number for an item published without one. */
const workIdOf = (delivery: JsMsg): string => delivery.headers?.get(PubHeaders.MsgIdHdr) || `seq:${delivery.seq}`;

/**
 * Consumes one durable consumer of the stream (consumeDurableLoop): each item
 * is parsed and handed to `handle` with the id it was queued under (every
 * delivery of an item has the same), acknowledged once that resolves;
 * handlers must be idempotent. Malformed items are logged and dropped.
 */
export async function consumeNotificationWork<S extends z.ZodType>(
  nc: NatsConnection,
  consumer: { name: string; subject: string; pullBatch?: number },
  schema: S,
  handle: (item: z.output<S>, workId: string) => Promise<void>,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  return consumeDurableLoop(nc, {
    stream: NOTIFICATION_WORK_STREAM,
    consumer: consumer.name,
    handlers: new Map([
      [consumer.subject, { schema, handle: (item, delivery) => handle(item as z.output<S>, workIdOf(delivery)) }],
    ]),
    pullBatch: consumer.pullBatch ?? 256,
    metrics: { outcomes: metricsOf(nc).notificationWorkHandled, labels: { consumer: consumer.name } },
    log,
  });
}
