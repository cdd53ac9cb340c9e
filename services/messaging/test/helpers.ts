import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import type { TestSystem } from "../../../test/support/system";

/** Creates a channel as `user` and returns its id. */
export async function createChannel(
  sys: TestSystem,
  user: Credentials,
  name: string,
  subscribers: number[],
  extra: Record<string, unknown> = {},
): Promise<number> {
  return ok(await sys.api(user).post("/channels/create", { name, subscribers, ...extra })).id as number;
}

export interface CapturedEvent {
  realmId: number;
  userIds: number[] | "all";
  event: Record<string, unknown> & { type: string };
  perUser?: Record<string, Record<string, unknown>>;
}

/** Records messaging's domain events from the bus (what notifications receives). */
export function captureEvents(sys: TestSystem) {
  const events: CapturedEvent[] = [];
  const sub = sys.nc.subscribe("events.messaging.>", {
    callback: (_err, msg) => {
      events.push(msg.json<CapturedEvent>());
    },
  });
  return {
    events,
    /** Waits until the events published so far have arrived, then returns and clears them. */
    async take(): Promise<CapturedEvent[]> {
      await sys.nc.flush();
      await new Promise((r) => setTimeout(r, 100));
      return events.splice(0);
    },
    stop: () => sub.unsubscribe(),
  };
}
