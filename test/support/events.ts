import type { NatsConnection } from "@nats-io/transport-node";
import { notifications, type Envelope } from "@teamchat/shared";
import { ok, type ApiClient } from "@teamchat/shared/src/testing/api";

export interface ZulipEvent {
  id: number;
  type: string;
  [field: string]: unknown;
}

/** A registered event queue read through GET /events, as a client's event loop does. */
export class EventReader {
  readonly events: ZulipEvent[] = [];
  private lastEventId = -1;

  private constructor(
    private readonly api: ApiClient,
    readonly queueId: string,
  ) {}

  static async register(api: ApiClient, params: Record<string, unknown> = {}): Promise<EventReader> {
    const reg = ok(await api.post("/register", params));
    const reader = new EventReader(api, reg.queue_id as string);
    reader.lastEventId = reg.last_event_id as number;
    return reader;
  }

  /** Long-polls until `done(events)` holds (heartbeats are skipped); fails after `timeoutMs`. */
  async until(done: (events: ZulipEvent[]) => boolean, timeoutMs = 10_000): Promise<ZulipEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.events)) {
      if (Date.now() > deadline) {
        throw new Error(`expected events did not arrive; got ${JSON.stringify(this.events)}`);
      }
      await this.poll(false);
    }
    return this.events;
  }

  /** Takes whatever is queued now, without waiting. */
  async drain(): Promise<ZulipEvent[]> {
    await this.poll(true);
    return this.events;
  }

  ofType(type: string): ZulipEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  private async poll(dontBlock: boolean): Promise<void> {
    const body = ok(
      await this.api.get("/events", { queue_id: this.queueId, last_event_id: this.lastEventId, dont_block: dontBlock }),
    );
    for (const e of body.events as ZulipEvent[]) {
      this.lastEventId = Math.max(this.lastEventId, e.id);
      if (e.type !== "heartbeat") this.events.push(e);
    }
  }
}

/**
 * Starts `poll` (a GET /events of `queueId`) and resolves once its request is
 * on the bus, so at notifications: a poll that then finds nothing parks, and
 * what the test does next happens while it waits (the reply is wrapped, so
 * that awaiting this does not await it).
 */
export async function whenPolling<T>(
  nc: NatsConnection,
  queueId: string,
  poll: () => Promise<T>,
): Promise<{ reply: Promise<T> }> {
  let arrived!: () => void;
  const seen = new Promise<void>((resolve) => (arrived = resolve));
  const sub = nc.subscribe(notifications.getEvents.subject, {
    callback: (_err, msg) => {
      if ((msg.json<Envelope>().params as { queue_id?: unknown }).queue_id === queueId) arrived();
    },
  });
  // the subscription is on the server before the request is sent
  await nc.flush();
  const reply = poll();
  // a poll answered at once (an error, say) has no need to wait
  await Promise.race([seen, reply]);
  sub.unsubscribe();
  return { reply };
}
