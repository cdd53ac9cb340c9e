import { RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import { z } from "zod";

/**
 * The work queue of notifications to send (missed-message mail, mobile push),
 * as Zulip's missedmessage_emails and missedmessage_mobile_notifications
 * queues: an item stays until the one consumer of its subject acknowledges it
 * (work-queue retention), survives the death of the instance that took it
 * (redelivered after the ack wait) and is stored once per Nats-Msg-Id within
 * the duplicate window. Every service that publishes or consumes ensures the
 * stream with these settings, so whichever starts first makes it.
 */
export const NOTIFICATION_WORK_STREAM = "NOTIFICATION_WORK";

/** What waits unsent this long (a consumer that never runs, such as push without a bouncer) is dropped. */
const NOTIFICATION_WORK_MAX_AGE_SECONDS = 7 * 24 * 3600;
/** How long a publisher's retry of an item with the same Nats-Msg-Id is recognised as the same item. */
const NOTIFICATION_WORK_DUPLICATE_WINDOW_SECONDS = 10 * 60;

export const notificationWorkStream = (replicas: number): Partial<StreamConfig> & Pick<StreamConfig, "name"> => ({
  name: NOTIFICATION_WORK_STREAM,
  subjects: ["notify.>"],
  retention: RetentionPolicy.Workqueue,
  storage: StorageType.File,
  max_age: NOTIFICATION_WORK_MAX_AGE_SECONDS * 1e9,
  duplicate_window: NOTIFICATION_WORK_DUPLICATE_WINDOW_SECONDS * 1e9,
  num_replicas: replicas,
});

/**
 * An end-to-end encrypted push registration to forward to the push
 * notification service (Zulip's register_push_device_to_bouncer queue item):
 * queued by POST /mobile_push/register, retried until the bouncer answers.
 */
export const pushRegistrationNotice = z.strictObject({
  realmId: z.number().int(),
  userId: z.number().int(),
  pushAccountId: z.number().int(),
  bouncerPublicKey: z.string(),
  encryptedPushRegistration: z.string(),
});
export type PushRegistrationNotice = z.infer<typeof pushRegistrationNotice>;

/** The subject of PushRegistrationNotice on NOTIFICATION_WORK (identity consumes it with notify.push). */
export const PUSH_REGISTRATION_SUBJECT = "notify.push-registration";

/**
 * One user's weekly digest to consider (Zulip's digest_emails queue item, one
 * user per item here): queued on `notify.digest` when the organization's
 * digest day comes, with a Nats-Msg-Id of organization, user and week.
 */
export const digestNotice = z.strictObject({
  realmId: z.number().int(),
  userId: z.number().int(),
  /** the digest covers what happened after this (seconds since the epoch): Zulip's cutoff */
  cutoff: z.number().int(),
  /** the Monday (UTC, YYYY-MM-DD) of the digest's week: one digest per user and week */
  week: z.string(),
});
export type DigestNotice = z.infer<typeof digestNotice>;

/**
 * An event queue collected (idle past its lifespan, or deleted by its
 * client), for Zulip's missedmessage_hook: queued before the queue is removed,
 * with a Nats-Msg-Id of the queue, so the messages its client never fetched
 * are considered once even when the removing instance dies.
 */
export const collectedQueueNotice = z.strictObject({
  realmId: z.number().int(),
  userId: z.number().int(),
  queueId: z.string(),
  /** the events up to this id were acknowledged by the client */
  acknowledged: z.number().int(),
});
export type CollectedQueueNotice = z.infer<typeof collectedQueueNotice>;
