import {
  DOMAIN_EVENTS_STREAM,
  QUEUE_COLLECTED_WORK_CONSUMER,
  consumeNotificationWork,
  messaging,
  messagingEvents,
  notifications,
  streamManager,
} from "@teamchat/shared";
import {
  sentMessageDecisions,
  snapshotOf,
  type Deps,
  type MessageSent,
  type MissedMessageQueueing,
} from "./missed-message-decisions";

/** The request id of the hook's bus calls, in the logs of the services it asks. */
const REQUEST_ID = "collected-event-queue";
/** A collected queue's messages are read back and decided this many at a time, so that its memory stays small. */
const SENDINGS_AT_ONCE = 50;

/**
 * Zulip's missedmessage_hook (zerver/tornado/event_queue.py): a user who had
 * an event queue when a message came was not idle, so was not emailed nor
 * pushed it; when their last queue is collected (idle past its lifespan, or
 * deleted by its client) the messages still in it, never acknowledged, are
 * decided again as for an idle user, with what their sending knew (flags,
 * mentioned group, disable_external_notifications: the domain event the
 * message event was made of). Zulip's already_notified: the mailer keeps a
 * row per user and message and the push sender claims each way per user and
 * message, so what went when the message was sent does not go again. A
 * message read or deleted since is left out, as Zulip's workers leave it out.
 * The notices' message ids are made of the queue and the message, apart from
 * those of the sending, and the same when the notice is handled again.
 */
export async function consumeCollectedQueues(
  { nc, bus, store, pushConfigured, log }: Deps,
  { notifiable, queue, context }: MissedMessageQueueing,
): Promise<{ stop(): Promise<void> }> {
  const jsm = await streamManager(nc);

  /** The message's sending at this place of the domain event stream; null once the stream dropped it (its max_age). */
  const messageSentAt = async (seq: number): Promise<MessageSent | null> => {
    const m = await jsm.streams.getMessage(DOMAIN_EVENTS_STREAM, { seq });
    return m?.subject === messagingEvents.messageSent.subject
      ? messagingEvents.messageSent.payload.parse(m.json())
      : null;
  };

  const onCollected = async ({ realmId, userId, queueId, acknowledged }: notifications.CollectedQueueNotice) => {
    // Zulip's last_for_client: a live queue of the user's has the messages too, and is still theirs to fetch
    const live = await store.liveQueuesOf(realmId, [userId]);
    if (live.some((q) => q.queueId !== queueId)) return;
    const origins = await store.messagesNeverFetched(queueId, acknowledged);
    for (let i = 0; i < origins.length; i += SENDINGS_AT_ONCE) {
      await decideAgain(realmId, userId, queueId, origins.slice(i, i + SENDINGS_AT_ONCE));
    }
  };

  /** A slice of a collected queue's messages, read back from their domain events and decided as for an idle user. */
  const decideAgain = async (realmId: number, userId: number, queueId: string, origins: number[]) => {
    const sendings = (await Promise.all(origins.map(messageSentAt)))
      // sent to the user (not only seen by a queue of every public channel) by someone else, and not by Welcome Bot
      .filter(
        (p): p is MessageSent =>
          p !== null &&
          messagingEvents.receiversOf(p).includes(userId) &&
          p.message.sender_id !== userId &&
          !p.disableExternalNotifications,
      );
    if (!sendings.length) return;
    const { message_ids } = await bus.request(
      messaging.getUnreadMessageIds,
      { user_id: userId, message_ids: sendings.map((p) => p.message.id) },
      await context(realmId, REQUEST_ID),
    );
    const unread = new Set(message_ids);
    for (const sending of sendings.filter((p) => unread.has(p.message.id))) {
      const { message, markdown, flags } = sending;
      const asIdle = await notifiable(realmId, message, [userId], flags, REQUEST_ID, true);
      await queue(
        realmId,
        snapshotOf(message, markdown),
        sentMessageDecisions(sending, asIdle, pushConfigured),
        (kind) => `${kind}:gc:${queueId}:${message.id}`,
      );
    }
  };

  return consumeNotificationWork(
    nc,
    QUEUE_COLLECTED_WORK_CONSUMER,
    notifications.collectedQueueNotice,
    onCollected,
    log,
  );
}
