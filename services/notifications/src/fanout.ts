import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { z } from "zod";
import {
  PASS_THROUGH_EVENTS,
  messagingEvents,
  subscribeEvent,
  type EventDefinition,
  type Logger,
  type PayloadOf,
  type notifications,
} from "@teamchat/shared";
import { accepts, acceptsMessage } from "./accepts";
import { eventForClient, messageForClient } from "./client-view";
import type { EventStore } from "./event-store";

/** What every pass-through event carries: a Zulip event and who may see it. */
type ClientEventPayload = PayloadOf<(typeof PASS_THROUGH_EVENTS)[number]>;
type MessageSent = PayloadOf<typeof messagingEvents.messageSent>;
type MessageUpdated = PayloadOf<typeof messagingEvents.messageUpdated>;

/**
 * Domain events → queues. Queue-group subscriptions: each event is handled by
 * one instance. Events of one organization are appended in arrival order on
 * this instance (a chain per realm, across every subscription: NATS calls the
 * callbacks of one connection in arrival order); with several instances, order
 * across instances is NATS delivery order only.
 */
export function consumeDomainEvents(nc: NatsConnection, store: EventStore, log: Logger): { stop(): Promise<void> } {
  const chains = new Map<number, Promise<void>>();

  const inOrder = (realmId: number, subject: string, deliver: () => Promise<void>) => {
    const next = (chains.get(realmId) ?? Promise.resolve())
      .then(deliver)
      .catch((err: unknown) => log.error({ err, subject }, "domain event not delivered to queues"));
    chains.set(realmId, next);
    void next.finally(() => {
      if (chains.get(realmId) === next) chains.delete(realmId);
    });
  };

  /** As published, to the queues that want it. */
  const passThrough = async ({ realmId, userIds, event }: ClientEventPayload) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues.filter((q) => accepts(q, event)).map((q) => appendAll(q.queueId, eventForClient(q, event))),
    );
  };

  const appendAll = async (queueId: string, events: notifications.ClientEvent[]) => {
    for (const event of events) await store.append(queueId, event);
  };

  /** Zulip's update_message event, with each user's flags for the edited message. */
  const messageUpdate = async ({ realmId, userIds, event, flags }: MessageUpdated) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues
        .filter((q) => accepts(q, event))
        .map((q) => appendAll(q.queueId, eventForClient(q, { ...event, flags: flags[q.userId] ?? ["read"] }))),
    );
  };

  /** Zulip's message event, shaped per queue, with the user's flags. */
  const message = async ({ realmId, userIds, message, markdown, flags, localEcho }: MessageSent) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues.map((q) => {
        const userFlags = flags[q.userId] ?? [];
        if (!acceptsMessage(q, message, userFlags)) return;
        return store.append(q.queueId, {
          type: "message",
          message: messageForClient(q, message, markdown),
          flags: userFlags,
          ...(localEcho?.queueId === q.queueId && { local_message_id: localEcho.localId }),
        });
      }),
    );
  };

  const opts = { queue: "notifications", log };
  const consume = <P extends z.ZodType<{ realmId: number }>>(
    def: EventDefinition<P>,
    deliver: (payload: z.output<P>) => Promise<void>,
  ) =>
    subscribeEvent(nc, def, (payload, { subject }) => inOrder(payload.realmId, subject, () => deliver(payload)), opts);
  const subs: Subscription[] = [
    ...PASS_THROUGH_EVENTS.map((def: EventDefinition<z.ZodType<ClientEventPayload>>) => consume(def, passThrough)),
    consume(messagingEvents.messageSent, message),
    consume(messagingEvents.messageUpdated, messageUpdate),
  ];

  return {
    stop: async () => {
      await Promise.all(subs.map((s) => s.drain()));
      await Promise.allSettled([...chains.values()]);
    },
  };
}
