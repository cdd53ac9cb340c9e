import { Counter, type Registry } from "prom-client";
import { METRIC_PREFIX } from "@teamchat/shared";
import type { BouncerOutcome } from "./bouncer";

/** The push notification service's requests and the work items they carry, on the instance's registry. */
export class PushMetrics {
  readonly bouncerRequests: Counter<"endpoint" | "outcome">;
  readonly workItems: Counter<"kind" | "outcome">;

  constructor(registry: Registry) {
    const registers = [registry];
    this.bouncerRequests = new Counter({
      name: `${METRIC_PREFIX}push_bouncer_requests_total`,
      help: "Requests to the push notification service, by endpoint and outcome: ok, retry_later (network or 5xx), refused (4xx)",
      labelNames: ["endpoint", "outcome"],
      registers,
    });
    this.workItems = new Counter({
      name: `${METRIC_PREFIX}push_work_items_total`,
      help: "Push work items (message, remove, registration) handled, by outcome: ok, retry, dropped (malformed or out of tries), failed (refused)",
      labelNames: ["kind", "outcome"],
      registers,
    });
  }

  bouncerRequest = (endpoint: string, outcome: BouncerOutcome): void => {
    this.bouncerRequests.inc({ endpoint, outcome });
  };
}
