import { Gauge, type Registry } from "prom-client";
import { METRIC_PREFIX, type Logger } from "@teamchat/shared";
import type { EventQueueRepository } from "./event-queues/event-queue.repository";
import type { ParkedPolls } from "./parked-polls";

/** notifications' own gauges, read when Prometheus scrapes (nothing is counted per request). */
export function registerNotificationsMetrics(
  registry: Registry,
  parked: ParkedPolls,
  queues: EventQueueRepository,
  log: Logger,
): void {
  new Gauge({
    name: `${METRIC_PREFIX}parked_polls`,
    help: "GET /events long-polls this instance holds parked",
    registers: [registry],
    collect() {
      this.set(parked.size);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}event_queues`,
    help: "Live event queues of the whole system (every instance reports the same figure: take the max)",
    registers: [registry],
    async collect() {
      try {
        this.set(await queues.countLive(new Date()));
      } catch (err) {
        // the database out of reach: the last figure stays, the other metrics are still served
        log.warn({ err }, "event queue count failed");
      }
    },
  });
}
