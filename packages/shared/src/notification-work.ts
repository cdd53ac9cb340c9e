import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import type { Logger } from "pino";
import type { z } from "zod";
import { notificationWorkSubjects } from "./contracts/notifications/missed-message";
import { NOTIFICATION_WORK_STREAM, notificationWorkStream } from "./contracts/notifications/notification-work";
import { configureThroughElection, ensureStream } from "./jetstream";
import { metricsOf } from "./metrics";

/** An item taken and neither acknowledged nor refused within this is delivered again. */
const ACK_WAIT_SECONDS = 30;

/** The durable consumer of missed-message emails, shared by messaging's instances. */
export const EMAIL_WORK_CONSUMER = { name: "notification-email", subject: notificationWorkSubjects.email } as const;

/** The durable consumer of weekly digests, shared by messaging's instances. */
export const DIGEST_WORK_CONSUMER = { name: "notification-digest", subject: notificationWorkSubjects.digest } as const;

export type NotificationWorkKind = keyof typeof notificationWorkSubjects;

/** Creates the stream and messaging's consumers (email, digest), or updates them; concurrent calls are harmless. */
export async function ensureNotificationWorkStream(nc: NatsConnection, replicas: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, notificationWorkStream(replicas));
  for (const consumer of [EMAIL_WORK_CONSUMER, DIGEST_WORK_CONSUMER]) {
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

/** A failed item is delivered again after 1 s, doubled at each failure up to 5 minutes. */
export const retryDelayMs = (deliveryCount: number): number =>
  Math.min(1000 * 2 ** Math.max(0, deliveryCount - 1), 5 * 60_000);

/**
 * Consumes one durable consumer of the stream: each item is parsed and handed
 * to `handle`, acknowledged once that resolves, and delivered again after a
 * back-off when it rejects (or after ACK_WAIT_SECONDS when the instance dies
 * first); handlers must be idempotent. Malformed items are logged and dropped.
 */
export async function consumeNotificationWork<S extends z.ZodType>(
  nc: NatsConnection,
  consumer: { name: string },
  schema: S,
  handle: (item: z.output<S>) => Promise<void>,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const pending = new Set<Promise<void>>();
  const count = (outcome: "ok" | "retry" | "dropped") =>
    metricsOf(nc).notificationWorkHandled.inc({ consumer: consumer.name, outcome });
  const onMessage = (m: JsMsg) => {
    const parsed = schema.safeParse(m.json());
    if (!parsed.success) {
      log.error({ subject: m.subject, issues: parsed.error.issues }, "malformed notification work dropped");
      count("dropped");
      return m.term();
    }
    const done = handle(parsed.data).then(
      () => {
        m.ack();
        count("ok");
      },
      (err: unknown) => {
        const delay = retryDelayMs(m.info.deliveryCount);
        log.warn({ err, subject: m.subject, consumer: consumer.name, retryInMs: delay }, "notification work failed");
        m.nak(delay);
        count("retry");
      },
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
  };
  const messages = await (
    await jetstream(nc).consumers.get(NOTIFICATION_WORK_STREAM, consumer.name)
  ).consume({ max_messages: 256, callback: onMessage });
  return {
    stop: async () => {
      await messages.close();
      await Promise.allSettled([...pending]);
    },
  };
}
