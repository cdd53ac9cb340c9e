import type { NatsConnection } from "@nats-io/transport-node";
import {
  DURABLE_CONSUMERS,
  consumeDurably,
  identity,
  messaging,
  messagingEvents,
  NotificationRecipients,
  publishNotificationWork,
  RealmMailContexts,
  type BusClient,
  type DurableHandler,
  type Logger,
  type PayloadOf,
  type notifications,
} from "@teamchat/shared";
import type { EventStore } from "../event-store";
import { decide, notifiesOfEveryMessage, type Decision, type RecipientState } from "./decide";
import type { PushNotifiedRepository } from "./push-notified.repository";

type NotifiedUser = notifications.MissedMessageNotices["users"][number];
export type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
type FlagsUpdated = PayloadOf<typeof messagingEvents.messageFlagsUpdated>;
type MessagesDeleted = PayloadOf<typeof messagingEvents.messagesDeleted>;
type MessageUpdated = PayloadOf<typeof messagingEvents.messageUpdated>;

/** Zulip's OFFLINE_THRESHOLD_SECS: a user whose last active presence is older is idle. */
const OFFLINE_THRESHOLD_SECS = 140;

export interface Deps {
  nc: NatsConnection;
  bus: BusClient;
  store: EventStore;
  pushNotified: PushNotifiedRepository;
  /** a push notification service is configured (Zulip's push_notifications_configured) */
  pushConfigured: boolean;
  log: Logger;
}

/** The message as the notices show it: a message event's view and its Markdown source. */
export const snapshotOf = (message: messaging.Message, markdown: string): notifications.MissedMessageSnapshot => ({
  id: message.id,
  senderId: message.sender_id,
  senderFullName: message.sender_full_name,
  senderEmail: message.sender_email,
  type: message.type,
  ...(message.type === "stream"
    ? { channelId: message.stream_id, channelName: message.display_recipient, topic: message.subject }
    : { directRecipientIds: message.display_recipient.map((r) => r.id) }),
  content: markdown,
  renderedContent: message.content,
  dateSent: message.timestamp,
});

/**
 * Zulip's maybe_enqueue_notifications for a sent message's recipients: what
 * decide() gives each, with the group whose mention notified them, which
 * goes with whichever trigger.
 */
export const sentMessageDecisions = (
  { message, mentionedUserGroups }: MessageSent,
  recipients: Array<RecipientState & { userId: number }>,
  pushConfigured: boolean,
) =>
  recipients.map((r) => {
    const group = mentionedUserGroups?.[r.userId];
    return {
      user: { userId: r.userId, ...(group && { mentionedUserGroup: group }) },
      state: r,
      decision: decide(message.type === "private", r, pushConfigured),
    };
  });

/**
 * The recipients a sent message may notify, whom the decision looks at: as
 * Zulip's get_recipient_info selects them, those the message mentions (its
 * flags) and those whose settings ask for every message of its channel or
 * topic (notifiableUserIds, which messaging gives for a channel message);
 * for a direct message, or an event without that list, every recipient.
 * decide() gives nothing to the others: an unmentioned channel message
 * notifies only through the channel's or a followed topic's settings.
 */
export function notificationCandidates({ userIds, flags, notifiableUserIds }: MessageSent): number[] {
  if (notifiableUserIds === undefined) return messagingEvents.receiversOf({ userIds, flags });
  const mentioned = Object.entries(flags)
    .filter(([, f]) => messaging.MENTION_FLAGS.some((m) => f.includes(m)))
    .map(([id]) => Number(id));
  return [...new Set([...notifiableUserIds, ...mentioned])];
}

/** What decides and queues missed-message notices, for a message's sending and for a collected event queue. */
export type MissedMessageQueueing = ReturnType<typeof missedMessageQueueing>;

export function missedMessageQueueing(deps: Deps) {
  const { nc } = deps;
  const realms = new RealmMailContexts(deps.bus);
  const recipients = new NotificationRecipients(deps.bus, realms);

  /**
   * Of `candidates` (recipients of the message other than its sender), those
   * who may be notified now: active, not bots, away or with online push;
   * with what decide() reads of each. `idle` when they are known to be away
   * (Zulip's missedmessage_hook), else found from their queues and presence.
   */
  const notifiable = async (
    realmId: number,
    message: messaging.Message,
    candidates: number[],
    flags: Record<string, string[]>,
    requestId: string | undefined,
    idle?: true,
  ): Promise<Array<RecipientState & { userId: number }>> => {
    if (!candidates.length) return [];
    const requestIdOfWork = requestId ?? "missed-message-decision";
    const users = await recipients.of(realmId, candidates, requestIdOfWork);
    const now = Date.now() / 1000;
    const onZulip = new Set(
      idle
        ? []
        : (await deps.store.liveQueuesOf(realmId, candidates))
            .filter((q) => q.eventTypes === null || q.eventTypes.includes("message"))
            .map((q) => q.userId),
    );
    const isIdle = (u: identity.NotificationRecipient) =>
      !onZulip.has(u.user_id) || u.presence_active_at === null || now - u.presence_active_at > OFFLINE_THRESHOLD_SECS;
    const relevant = users.filter(
      (u) =>
        u.is_active && !u.is_bot && (isIdle(u) || (deps.pushConfigured && u.settings.enable_online_push_notifications)),
    );
    if (!relevant.length) return [];
    const channel = message.type === "stream" ? { stream_id: message.stream_id, topic: message.subject } : {};
    const { users: facts } = await deps.bus.request(
      messaging.getNotificationFacts,
      { sender_id: message.sender_id, user_ids: relevant.map((u) => u.user_id), ...channel },
      await realms.context(realmId, requestIdOfWork),
    );
    const factsOf = new Map(facts.map((f) => [f.user_id, f]));
    return relevant.flatMap((u) => {
      const f = factsOf.get(u.user_id);
      return f
        ? [{ userId: u.user_id, flags: flags[u.user_id] ?? [], settings: u.settings, facts: f, idle: isIdle(u) }]
        : [];
    });
  };

  /**
   * Queues what decide() chose for a message's users: one item per way
   * listing them, under the message id `idOf(kind)`.
   */
  const queue = async (
    realmId: number,
    message: notifications.MissedMessageSnapshot,
    decisions: Array<{ user: Omit<NotifiedUser, "trigger">; state: RecipientState; decision: Decision }>,
    idOf: (kind: string) => string,
  ) => {
    const email = decisions.flatMap(({ user, state, decision }) =>
      decision.email
        ? [
            {
              ...user,
              trigger: decision.email,
              batchingSeconds: state.settings.email_notifications_batching_period_seconds,
            },
          ]
        : [],
    );
    const push = decisions.flatMap(({ user, decision }) =>
      decision.push ? [{ ...user, trigger: decision.push }] : [],
    );
    if (email.length) await publishNotificationWork(nc, "email", { realmId, message, users: email }, idOf("email"));
    if (push.length) {
      await deps.pushNotified.add(
        realmId,
        push.map((u) => u.userId),
        message.id,
      );
      await publishNotificationWork(nc, "push", { realmId, message, users: push }, idOf("push"));
    }
  };

  /** The call context of the organization's internal requests. */
  const context = (realmId: number, requestId: string) => realms.context(realmId, requestId);

  return { notifiable, queue, context };
}

/**
 * Zulip's missed-message decision (zerver/tornado/event_queue.py
 * maybe_enqueue_notifications, with the sets message_send.py computes), made
 * here, where the event queues are, from the message's domain event through a
 * durable consumer: never on POST /messages' path. Each recipient who is not
 * the sender nor a bot and who is away (no event queue that takes messages,
 * or no active presence within OFFLINE_THRESHOLD_SECS) is queued an email
 * and/or a push notice with the trigger Zulip gives; so is a user an edit
 * newly mentions; a message read or deleted after a push has its push
 * withdrawn. A message's notices go as one item per way, whose message id
 * is made of the message (or edit) and the way, so a redelivered event
 * queues nothing twice.
 */
export async function consumeMissedMessageDecisions(
  deps: Deps,
  { notifiable, queue }: MissedMessageQueueing,
): Promise<{ stop(): Promise<void> }> {
  const { nc, log } = deps;

  const onMessage = async (payload: MessageSent, requestId?: string) => {
    const { realmId, message, markdown, flags } = payload;
    // Zulip's disable_external_notifications (Welcome Bot's messages): nobody is mailed or pushed it
    if (payload.disableExternalNotifications) return;
    const candidates = notificationCandidates(payload).filter((id) => id !== message.sender_id);
    const decisions = sentMessageDecisions(
      payload,
      await notifiable(realmId, message, candidates, flags, requestId),
      deps.pushConfigured,
    );
    await queue(realmId, snapshotOf(message, markdown), decisions, (kind) => `${kind}:${realmId}:${message.id}`);
  };

  /**
   * Zulip's maybe_enqueue_notifications_for_message_update: a content edit of
   * a channel message notifies the users it newly mentions, unless the
   * channel's or the followed topic's settings already notified them of the
   * message (direct messages were notified when sent). Zulip names no group
   * for an edit's mentions. The notices' message ids are made of the edit's
   * event, apart from those of the message's sending.
   */
  const onEdit = async (
    { realmId, event, flags, contentEdit }: MessageUpdated,
    eventId: string,
    requestId?: string,
  ) => {
    if (!contentEdit || event.rendering_only || contentEdit.message.type === "private") return;
    const { message, markdown } = contentEdit;
    const prior = new Set(contentEdit.priorMentionUserIds);
    const candidates = Object.entries(flags)
      .filter(([, f]) => messaging.MENTION_FLAGS.some((m) => f.includes(m)))
      .map(([id]) => Number(id))
      .filter((id) => !prior.has(id) && id !== message.sender_id && id !== event.user_id);
    const decisions = (await notifiable(realmId, message, candidates, flags, requestId))
      .filter((r) => !notifiesOfEveryMessage(r))
      .map((r) => ({ user: { userId: r.userId }, state: r, decision: decide(false, r, deps.pushConfigured) }));
    await queue(realmId, snapshotOf(message, markdown), decisions, (kind) => `${kind}:edit:${eventId}`);
  };

  /** Zulip's do_clear_mobile_push_notifications_for_ids: one removal per user for the messages pushed to them. */
  const withdraw = async (realmId: number, byUser: Map<number, number[]>, eventId: string) => {
    for (const [userId, messageIds] of byUser) {
      const removal: notifications.PushRemovalNotice = { realmId, userId, messageIds };
      await publishNotificationWork(nc, "pushRemoval", removal, `remove:${userId}:${eventId}`);
      await deps.pushNotified.forget(realmId, userId, messageIds);
    }
  };

  // Without a push service nothing is ever pushed (decide()), so there is nothing to withdraw: no
  // look-up per message read, which was a third of the database's commands under a busy team.
  const onFlags = async ({ realmId, userIds, event }: FlagsUpdated, eventId: string) => {
    if (!deps.pushConfigured || event.flag !== "read" || event.op !== "add" || userIds === "all") return;
    for (const userId of userIds) {
      await withdraw(
        realmId,
        await deps.pushNotified.notified(realmId, userId, event.all ? "all" : event.messages),
        eventId,
      );
    }
  };

  const onDelete = async ({ realmId, event }: MessagesDeleted, eventId: string) => {
    if (!deps.pushConfigured) return;
    const ids = event.message_ids ?? (event.message_id === undefined ? [] : [event.message_id]);
    if (ids.length) await withdraw(realmId, await deps.pushNotified.notified(realmId, null, ids), eventId);
  };

  const handlers = (consumer: keyof typeof DURABLE_CONSUMERS, h: DurableHandler) =>
    consumeDurably(nc, DURABLE_CONSUMERS[consumer], new Map([[h.def.subject, h]]), log);
  const consumers = await Promise.all([
    handlers("missedMessages", {
      def: messagingEvents.messageSent,
      handle: (p, { requestId }) => onMessage(p as MessageSent, requestId),
    }),
    handlers("mentionsAddedByEdits", {
      def: messagingEvents.messageUpdated,
      handle: (p, { eventId, requestId }) => onEdit(p as MessageUpdated, eventId, requestId),
    }),
    handlers("pushRemovalsOnRead", {
      def: messagingEvents.messageFlagsUpdated,
      handle: (p, { eventId }) => onFlags(p as FlagsUpdated, eventId),
    }),
    handlers("pushRemovalsOnDelete", {
      def: messagingEvents.messagesDeleted,
      handle: (p, { eventId }) => onDelete(p as MessagesDeleted, eventId),
    }),
  ]);
  return { stop: async () => void (await Promise.all(consumers.map((c) => c.stop()))) };
}
