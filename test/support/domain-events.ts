import type { NatsConnection } from "@nats-io/transport-node";
import type { DomainEvent } from "@teamchat/shared";

/** Collects the domain events one service publishes (what notifications receives), to assert on them after a write. */
export async function recordDomainEvents(nc: NatsConnection, service: string) {
  const events: DomainEvent[] = [];
  const sub = nc.subscribe(`events.${service}.>`, {
    callback: (_err, msg) => {
      events.push(msg.json<DomainEvent>());
    },
  });
  await nc.flush();
  return {
    events,
    /** Waits until `n` events arrived (publishing is asynchronous to the reply), then takes them. */
    async next(n = 1): Promise<DomainEvent[]> {
      for (let i = 0; i < 100 && events.length < n; i++) await new Promise((r) => setTimeout(r, 20));
      return events.splice(0, n);
    },
    stop: () => sub.unsubscribe(),
  };
}
