import type { NatsConnection } from "@nats-io/transport-node";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import type { Logger } from "pino";
import type { z } from "zod";
import {
  configureThroughElection,
  consumeDurableLoop,
  ensureStream,
  notifications,
  streamManager,
} from "@teamchat/shared";
import { BouncerConfigurationError } from "./bouncer";
import type { PushMetrics } from "./push-metrics";
import type { PushNotifier } from "./push-notifier";

/** identity's durable consumers of the notification work queue: one per subject (nats-server 2.9 filters on one). */
const consumerName = (kind: WorkKind<z.ZodType>["kind"]) => `identity-push-${kind}`;

/** A delivery not acknowledged within this (its instance died) goes to another instance. */
export const PUSH_WORK_ACK_WAIT_MS = 60_000;
/** Tries of one item before it is dropped: with the backoff below, about an hour of bouncer outage. */
const MAX_DELIVERIES = 20;
/** Items handled at once per instance. */
const PULL_BATCH = 64;
/** The bouncer's answer for an organization it has not been told of: uploaded, then tried again. */
const MISSING_REMOTE_REALM = "MISSING_REMOTE_REALM";

interface WorkKind<S extends z.ZodType> {
  kind: "message" | "remove" | "registration";
  schema: S;
  handle(notifier: PushNotifier, item: z.infer<S>): Promise<void>;
}

const work = <S extends z.ZodType>(w: WorkKind<S>) => w as unknown as WorkKind<z.ZodType>;

const WORK_BY_SUBJECT: ReadonlyMap<string, WorkKind<z.ZodType>> = new Map([
  [
    notifications.notificationWorkSubjects.push,
    work({ kind: "message", schema: notifications.missedMessageNotices, handle: (n, item) => n.notifyAll(item) }),
  ],
  [
    notifications.notificationWorkSubjects.pushRemoval,
    work({ kind: "remove", schema: notifications.pushRemovalNotice, handle: (n, item) => n.remove(item) }),
  ],
  [
    notifications.PUSH_REGISTRATION_SUBJECT,
    work({ kind: "registration", schema: notifications.pushRegistrationNotice, handle: (n, item) => n.register(item) }),
  ],
]);

/**
 * Consumes the push work of the NOTIFICATION_WORK stream (Zulip's
 * missedmessage_mobile_notifications queue) with consumeDurableLoop: each
 * item is acknowledged once sent, tried again with a growing wait while the
 * bouncer fails (by any instance; the notifier skips what a try already
 * sent), dropped after MAX_DELIVERIES or when the bouncer refuses this server.
 */
export async function consumePushWork(
  nc: NatsConnection,
  notifier: PushNotifier,
  metrics: PushMetrics,
  replicas: number,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const jsm = await streamManager(nc);
  await ensureStream(jsm, notifications.notificationWorkStream(replicas));
  for (const [subject, w] of WORK_BY_SUBJECT) {
    await configureThroughElection(() =>
      jsm.consumers.add(notifications.NOTIFICATION_WORK_STREAM, {
        durable_name: consumerName(w.kind),
        filter_subject: subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: PUSH_WORK_ACK_WAIT_MS * 1e6,
        max_deliver: MAX_DELIVERIES,
        max_ack_pending: 1000,
      }),
    );
  }
  const consumers = await Promise.all(
    [...WORK_BY_SUBJECT].map(([subject, w]) =>
      consumeDurableLoop(nc, {
        stream: notifications.NOTIFICATION_WORK_STREAM,
        consumer: consumerName(w.kind),
        handlers: new Map([
          [
            subject,
            {
              schema: w.schema,
              handle: (item) =>
                w.handle(notifier, item).catch(async (err: unknown) => {
                  if (err instanceof BouncerConfigurationError && err.code === MISSING_REMOTE_REALM) {
                    // an organization made since the last upload: told to the bouncer, then tried again
                    await notifier
                      .uploadRealms()
                      .catch((e: unknown) => log.warn({ err: e }, "organizations not uploaded"));
                  }
                  throw err;
                }),
            },
          ],
        ]),
        pullBatch: PULL_BATCH,
        maxDeliveries: MAX_DELIVERIES,
        // the bouncer refuses this server (Zulip's send_to_push_bouncer): no later try gets through
        isPermanent: (err) => err instanceof BouncerConfigurationError && err.code !== MISSING_REMOTE_REALM,
        metrics: { outcomes: metrics.workItems, labels: { kind: w.kind } },
        log,
      }),
    ),
  );
  return { stop: async () => void (await Promise.all(consumers.map((c) => c.stop()))) };
}
