import type { NatsConnection } from "@nats-io/transport-node";
import type { Audience } from "@teamchat/shared";
import type { TestOrganization } from "./organization";

/**
 * A domain event's payload as published (packages/shared/src/events): those of
 * an organization carry its realmId; client events carry their audience and
 * Zulip event, messages their message and flags.
 */
export interface DomainEvent {
  realmId: number;
  userIds?: Audience;
  event?: { type: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface DomainEventRecorder {
  /** arrived and not yet taken, in arrival order */
  readonly events: DomainEvent[];
  /** Waits until `n` events arrived, then takes them. */
  next(n?: number, timeoutMs?: number): Promise<DomainEvent[]>;
  /** Waits until `done(events)` holds over the events not yet taken, then takes them all. */
  until(done: (events: DomainEvent[]) => boolean, timeoutMs?: number): Promise<DomainEvent[]>;
  /**
   * Waits for the event `isMarker` picks and takes the events before it (the
   * marker is taken and dropped): "exactly these and nothing else" without a
   * fixed sleep. A service publishes its events on one NATS connection, so they
   * arrive in publishing order: once the event of a later write arrives, every
   * event of earlier writes has arrived too. The marker must therefore be an
   * action of the same service (one instance), performed after the writes
   * under test, e.g. one more message.
   */
  before(isMarker: (event: DomainEvent) => boolean, timeoutMs?: number): Promise<DomainEvent[]>;
  stop(): void;
}

/**
 * Records the domain events `service` publishes on `events.<service>.>` (what
 * notifications receives), those of the organization only: a shared system
 * carries every test organization's events. (Given a private system's NATS
 * connection instead, it records them all.) Waits resolve as soon as the
 * events arrive and fail after `timeoutMs` with what did arrive.
 */
export async function recordDomainEvents(
  source: Pick<TestOrganization, "nc" | "realm"> | NatsConnection,
  service: string,
): Promise<DomainEventRecorder> {
  const [nc, realmId] = "realm" in source ? [source.nc, source.realm.id] : [source, undefined];
  const events: DomainEvent[] = [];
  let waiter: (() => void) | undefined;
  const sub = nc.subscribe(`events.${service}.>`, {
    callback: (_err, msg) => {
      const event = msg.json<DomainEvent>();
      if (realmId !== undefined && event.realmId !== realmId) return;
      events.push(event);
      waiter?.();
    },
  });
  // The subscription is in place on the server before anything the test does next.
  await nc.flush();

  /** Resolves with take() once `ready()` returns a count of events to take (or null to keep waiting). */
  const waitFor = (ready: () => number | null, timeoutMs: number, what: string) =>
    new Promise<DomainEvent[]>((resolve, reject) => {
      if (waiter) throw new Error("one wait at a time");
      const timer = setTimeout(() => {
        waiter = undefined;
        reject(new Error(`${what} did not arrive within ${timeoutMs} ms; arrived: ${JSON.stringify(events)}`));
      }, timeoutMs);
      waiter = () => {
        const count = ready();
        if (count === null) return;
        clearTimeout(timer);
        waiter = undefined;
        resolve(events.splice(0, count));
      };
      waiter();
    });

  return {
    events,
    next: (n = 1, timeoutMs = 10_000) =>
      waitFor(() => (events.length >= n ? n : null), timeoutMs, `${n} ${service} event(s)`),
    until: (done, timeoutMs = 10_000) =>
      waitFor(() => (done(events) ? events.length : null), timeoutMs, `the expected ${service} events`),
    before: async (isMarker, timeoutMs = 10_000) => {
      const taken = await waitFor(
        () => {
          const at = events.findIndex(isMarker);
          return at < 0 ? null : at + 1;
        },
        timeoutMs,
        `the marker ${service} event`,
      );
      return taken.slice(0, -1);
    },
    stop: () => sub.unsubscribe(),
  };
}
