import type { NatsConnection } from "@nats-io/transport-node";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Connection } from "./db";
import type { ServiceMetrics } from "./metrics";

/** A dependency's check: resolves when it answers (a NATS round trip, a database ping). */
export type DependencyCheck = () => Promise<unknown>;

/** A check slower than this fails: a probe must answer in time even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 2_000;

export const natsCheck =
  (nc: NatsConnection): DependencyCheck =>
  () =>
    nc.isClosed() ? Promise.reject(new Error("connection closed")) : nc.flush();

export const databaseCheck =
  (db: Connection): DependencyCheck =>
  () =>
    db.db ? db.db.command({ ping: 1 }) : Promise.reject(new Error("not connected"));

export interface DependencyHealth {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

/** Every check at once, each timed and bounded by CHECK_TIMEOUT_MS. */
export async function checkDependencies(
  checks: Record<string, DependencyCheck>,
): Promise<{ ok: boolean; dependencies: Record<string, DependencyHealth> }> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, DependencyHealth]> => {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      });
      try {
        await Promise.race([check(), timeout]);
        return [name, { ok: true, latency_ms: elapsedMs(started) }];
      } catch (err) {
        return [name, { ok: false, latency_ms: elapsedMs(started), error: (err as Error).message }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ok: results.every(([, r]) => r.ok), dependencies: Object.fromEntries(results) };
}

const elapsedMs = (started: number) => Math.round((performance.now() - started) * 100) / 100;

export interface MetricsListener {
  /** `http://<host>:<port>` as bound (port 0 asks for a free one). */
  url: string;
  close(): Promise<void>;
}

export interface MetricsListenerOptions {
  port: number;
  host: string;
  metrics: ServiceMetrics;
  dependencies: Record<string, DependencyCheck>;
  log: Logger;
}

/**
 * The instance's own small HTTP listener (METRICS_PORT), apart from the
 * gateway's public port: `GET /metrics` (Prometheus text format) and
 * `GET /health` (200 `{"status":"ok","dependencies":{...}}`, 503 with
 * `"status":"degraded"` when a dependency fails), for Prometheus and for
 * readiness and liveness probes.
 */
export async function startMetricsListener(opts: MetricsListenerOptions): Promise<MetricsListener> {
  const { registry } = opts.metrics;
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body);
    if (req.method !== "GET") return send(405, "text/plain", "Method Not Allowed\n");
    if (path === "/metrics") {
      registry.metrics().then(
        (text) => send(200, registry.contentType, text),
        (err: unknown) => {
          opts.log.error({ err }, "metrics collection failed");
          send(500, "text/plain", "metrics collection failed\n");
        },
      );
    } else if (path === "/health") {
      void checkDependencies(opts.dependencies).then(({ ok, dependencies }) =>
        send(ok ? 200 : 503, "application/json", JSON.stringify({ status: ok ? "ok" : "degraded", dependencies })),
      );
    } else send(404, "text/plain", "Not Found\n");
  });
  // a scraper's idle keep-alive connection must not hold up a drain
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  opts.log.info({ port, host: opts.host }, "metrics listener ready");
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
