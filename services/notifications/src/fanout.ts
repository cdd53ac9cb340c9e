import type { NatsConnection } from "@nats-io/transport-node";
import { ALL_EVENTS, type DomainEvent, type Logger } from "@teamchat/shared";
import { accepts } from "./accepts";
import { forClient } from "./client-view";
import type { EventStore } from "./event-store";

/**
 * Domain events → queues. A queue-group subscription: each event is handled by
 * one instance. Events of one organization are appended in arrival order on
 * this instance (a chain per realm); with several instances, order across
 * instances is NATS delivery order only.
 */
export function consumeDomainEvents(nc: NatsConnection, store: EventStore, log: Logger): { stop(): Promise<void> } {
  const chains = new Map<number, Promise<void>>();

  const deliver = async (ev: DomainEvent) => {
    const queues = await store.queues.ofUsers(ev.realmId, ev.userIds);
    await Promise.all(
      queues
        .filter((q) => accepts(q, ev.event))
        .map((q) => store.append(q, forClient(q, { ...ev.event, ...(ev.perUser?.[q.userId] ?? {}) }, ev.markdown))),
    );
  };

  const sub = nc.subscribe(ALL_EVENTS, {
    queue: "notifications",
    callback: (err, msg) => {
      if (err) {
        log.error({ err }, "domain event subscription failed");
        return;
      }
      const ev = msg.json<DomainEvent>();
      const next = (chains.get(ev.realmId) ?? Promise.resolve())
        .then(() => deliver(ev))
        .catch((e: unknown) => log.error({ err: e, subject: msg.subject }, "domain event not delivered to queues"));
      chains.set(ev.realmId, next);
      void next.finally(() => {
        if (chains.get(ev.realmId) === next) chains.delete(ev.realmId);
      });
    },
  });

  return {
    stop: async () => {
      await sub.drain();
      await Promise.allSettled([...chains.values()]);
    },
  };
}
