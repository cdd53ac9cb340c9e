import type { NatsConnection } from "@nats-io/transport-node";
import type { z } from "zod";
import {
  DURABLE_CONSUMERS,
  PASS_THROUGH_EVENTS,
  consumeDurably,
  type DurableHandler,
  messagingEvents,
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
 * Domain events → queues, from the domain event stream through notifications'
 * durable consumer, on the one instance that leads the fan-out
 * (fanout-leadership.ts); each event is acknowledged once its queue events are
 * stored. An event whose delivery failed, or whose instance died before
 * acknowledging, is delivered again; each queue event it makes is published
 * with a message id made of the domain event's id, so the queue stream drops
 * a second copy and a redelivery changes nothing twice. Events of one
 * organization are appended in the stream's order (a chain per realm), a
 * redelivered one after those that followed it.
 */
export async function consumeDomainEvents(
  nc: NatsConnection,
  store: EventStore,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const chains = new Map<number, Promise<void>>();

  /** Runs `deliver` after the realm's earlier events; settles with it (the chain goes on either way). */
  const inOrder = (realmId: number, deliver: () => Promise<void>): Promise<void> => {
    const step = (chains.get(realmId) ?? Promise.resolve()).then(deliver);
    const next = step.catch(() => undefined);
    chains.set(realmId, next);
    void next.finally(() => {
      if (chains.get(realmId) === next) chains.delete(realmId);
    });
    return step;
  };

  /** The queue's events for one domain event; `origin` names that event, for the stream's duplicate check. */
  const appendAll = async (queueId: string, events: notifications.ClientEvent[], origin: string) => {
    for (const [i, event] of events.entries()) await store.append(queueId, event, `${origin}.${queueId}.${i}`);
  };

  /** As published, to the queues that want it. */
  const passThrough = async ({ realmId, userIds, event }: ClientEventPayload, origin: string) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues.filter((q) => accepts(q, event)).map((q) => appendAll(q.queueId, eventForClient(q, event), origin)),
    );
  };

  /** Zulip's update_message event, with each user's flags for the edited message. */
  const messageUpdate = async ({ realmId, userIds, event, flags }: MessageUpdated, origin: string) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues
        .filter((q) => accepts(q, event))
        .map((q) => appendAll(q.queueId, eventForClient(q, { ...event, flags: flags[q.userId] ?? ["read"] }), origin)),
    );
  };

  /** Zulip's message event, shaped per queue, with the user's flags. */
  const message = async ({ realmId, userIds, message, markdown, flags, localEcho }: MessageSent, origin: string) => {
    const queues = await store.ofUsers(realmId, userIds);
    await Promise.all(
      queues.map(async (q) => {
        const userFlags = flags[q.userId] ?? [];
        if (!acceptsMessage(q, message, userFlags)) return;
        const event = {
          type: "message" as const,
          message: messageForClient(q, message, markdown),
          flags: userFlags,
          ...(localEcho?.queueId === q.queueId && { local_message_id: localEcho.localId }),
        };
        await appendAll(q.queueId, [event], origin);
      }),
    );
  };

  const handlers = new Map<string, DurableHandler>();
  const on = <P extends z.ZodType<{ realmId: number }>>(
    def: EventDefinition<P>,
    deliver: (payload: z.output<P>, origin: string) => Promise<void>,
  ) =>
    handlers.set(def.subject, {
      def,
      handle: (payload, { eventId }) => {
        const p = payload as z.output<P>;
        return inOrder(p.realmId, () => deliver(p, eventId));
      },
    });
  PASS_THROUGH_EVENTS.forEach((def: EventDefinition<z.ZodType<ClientEventPayload>>) => on(def, passThrough));
  on(messagingEvents.messageSent, message);
  on(messagingEvents.messageUpdated, messageUpdate);
  const consumer = await consumeDurably(nc, DURABLE_CONSUMERS.fanout, handlers, log);

  return {
    stop: async () => {
      await consumer.stop();
      await Promise.allSettled([...chains.values()]);
    },
  };
}
