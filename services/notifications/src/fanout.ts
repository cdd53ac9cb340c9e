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
 * A domain event's queue events: for each queue that wants it, what to
 * append; `withOrigin` stores the domain event's sequence with them (message
 * events, which a collected queue's unfetched messages are found by).
 */
type Plan = Array<{ queueId: string; events: notifications.ClientEvent[]; withOrigin?: true }>;

/** Runs `work` after the earlier work under `key`; settles with it (the chain goes on either way). */
function chained<K, T>(chains: Map<K, Promise<unknown>>, key: K, work: () => Promise<T>): Promise<T> {
  const step = (chains.get(key) ?? Promise.resolve()).then(work);
  const next = step.catch(() => undefined);
  chains.set(key, next);
  void next.finally(() => {
    if (chains.get(key) === next) chains.delete(key);
  });
  return step;
}

/**
 * Domain events → queues, from the domain event stream through notifications'
 * durable consumer, on the one instance that leads the fan-out
 * (fanout-leadership.ts); each event is acknowledged once its queue events are
 * stored. An event whose delivery failed, or whose instance died before
 * acknowledging, is delivered again; each queue event it makes is published
 * with a message id made of the domain event's id, so the queue stream drops
 * a second copy and a redelivery changes nothing twice.
 *
 * Order: an organization's events are planned (which queues, what events) one
 * at a time in the stream's order, and each plan's appends are queued behind
 * the earlier appends to the same queue. So every queue gets its events in the
 * stream's order, while one event's appends to a hundred queues do not hold up
 * the next event's append to another queue. A redelivered event comes after
 * those that followed it.
 */
export async function consumeDomainEvents(
  nc: NatsConnection,
  store: EventStore,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const plannings = new Map<number, Promise<unknown>>();
  const appends = new Map<string, Promise<unknown>>();

  /** As published, to the queues that want it. */
  const passThrough = async ({ realmId, userIds, event }: ClientEventPayload): Promise<Plan> =>
    (await store.ofUsers(realmId, userIds))
      .filter((q) => accepts(q, event))
      .map((q) => ({ queueId: q.queueId, events: eventForClient(q, event) }));

  /** Zulip's update_message event, with each user's flags for the edited message. */
  const messageUpdate = async ({ realmId, userIds, event, flags }: MessageUpdated): Promise<Plan> =>
    (await store.ofUsers(realmId, userIds))
      .filter((q) => accepts(q, event))
      .map((q) => ({
        queueId: q.queueId,
        events: eventForClient(q, { ...event, flags: flags[q.userId] ?? ["read"] }),
      }));

  /** Zulip's message event, shaped per queue, with the user's flags. */
  const message = async ({ realmId, userIds, message, markdown, flags, localEcho }: MessageSent): Promise<Plan> =>
    (await store.ofUsers(realmId, userIds))
      .filter((q) => acceptsMessage(q, message, flags[q.userId] ?? []))
      .map((q) => ({
        queueId: q.queueId,
        withOrigin: true as const,
        events: [
          {
            type: "message" as const,
            message: messageForClient(q, message, markdown),
            flags: flags[q.userId] ?? [],
            ...(localEcho?.queueId === q.queueId && { local_message_id: localEcho.localId }),
          },
        ],
      }));

  /**
   * The plan's appends, each behind its queue's earlier ones; `eventId` names
   * the domain event, for the stream's duplicate check, and `seq` is its place
   * in the domain event stream.
   */
  const append = (plan: Plan, eventId: string, seq: number) =>
    Promise.all(
      plan.map(({ queueId, events, withOrigin }) =>
        chained(appends, queueId, async () => {
          for (const [i, event] of events.entries()) {
            await store.append(queueId, event, `${eventId}.${queueId}.${i}`, withOrigin ? seq : undefined);
          }
        }),
      ),
    );

  const handlers = new Map<string, DurableHandler>();
  const on = <P extends z.ZodType<{ realmId: number }>>(
    def: EventDefinition<P>,
    plan: (payload: z.output<P>) => Promise<Plan>,
  ) =>
    handlers.set(def.subject, {
      def,
      handle: async (payload, { eventId, seq }) => {
        const p = payload as z.output<P>;
        // the realm's chain waits for the plan only, not for its appends
        const { appended } = await chained(plannings, p.realmId, async () => ({
          appended: append(await plan(p), eventId, seq),
        }));
        await appended;
      },
    });
  PASS_THROUGH_EVENTS.forEach((def: EventDefinition<z.ZodType<ClientEventPayload>>) => on(def, passThrough));
  on(messagingEvents.messageSent, message);
  on(messagingEvents.messageUpdated, messageUpdate);
  const consumer = await consumeDurably(nc, DURABLE_CONSUMERS.fanout, handlers, log);

  return {
    stop: async () => {
      await consumer.stop();
      await Promise.allSettled([...plannings.values(), ...appends.values()]);
    },
  };
}
