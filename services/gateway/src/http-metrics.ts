import type { FastifyInstance } from "fastify";
import { Counter, Histogram } from "prom-client";
import { METRIC_PREFIX, type ServiceMetrics } from "@teamchat/shared";

/** Seconds: HTTP answers from a cached read (~1 ms) to a parked long-poll (the 50 s heartbeat). */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60];

/**
 * The gateway's own metrics: every answer by route (the route's pattern, as
 * `/api/v1/messages/:p0`, never the path itself: unknown paths count as
 * `unmatched`), method and status, its time, and the refusals of the rate limit.
 * Returns what counts a refusal.
 */
export function measureHttp(app: FastifyInstance, metrics: ServiceMetrics): { rateLimited(): void } {
  const registers = [metrics.registry];
  const answers = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: "HTTP answers by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    registers,
  });
  const seconds = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: "Time from an HTTP request's arrival to its answer, by route pattern and method",
    labelNames: ["route", "method"],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: `${METRIC_PREFIX}rate_limit_refusals_total`,
    help: "Requests refused by the per-user (or per-address) rate limit (429 RATE_LIMIT_HIT)",
    registers,
  });
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    answers.inc({ route, method: req.method, status: reply.statusCode });
    seconds.observe({ route, method: req.method }, reply.elapsedTime / 1000);
  });
  return { rateLimited: () => refusals.inc() };
}
