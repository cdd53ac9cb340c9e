import { ConnectionError, RequestError, connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { askAgain } from "./ask-again";
import { BusClient, BusServer, isTimeout } from "./bus";
import { databaseName, loadConfig, natsServers, type Config } from "./config";
import { connectDatabase, writeSafety, type Connection } from "./db";
import { EventPublisher, ensureDomainEventStream } from "./events";
import { createLogger } from "./logger";
import { ServiceMetrics } from "./metrics";
import { databaseCheck, natsCheck, startMetricsListener, type MetricsListener } from "./metrics-listener";
import type { BusService } from "./services";
// every service process: answered requests stop building a throw-away error each (see the file)
import "./nats-requests";
// every service process: the commands of one event-loop turn go out in one write (see the file)
import "./nats-write-batching";

/** What a service's composition root gets: real connections, built by the caller (main or a test). */
export interface ServiceDeps<S extends BusService = BusService> {
  nc: NatsConnection;
  db: Connection;
  config: Config;
  log: Logger;
  bus: BusClient;
  /** This instance's bus endpoint: register one handler per contract on it. */
  server: BusServer;
  /** Publishes this service's domain events (and only its own). */
  events: EventPublisher<S>;
  /** This instance's Prometheus registry and the shared metrics; a service adds its own to `registry`. */
  metrics: ServiceMetrics;
}

export interface RunningService {
  /** Background work to stop on shutdown (timers, listeners). */
  stop?: () => Promise<void> | void;
  /** Called as draining starts, before in-flight requests are awaited (e.g. answer parked long-polls now). */
  beforeDrain?: () => void;
}

export type ServiceFactory<S extends BusService = BusService> = (deps: ServiceDeps<S>) => Promise<RunningService>;

/**
 * A bus client as configured: replies are checked against their contracts except in production;
 * `pieceCacheBytes` for one that keeps the shared pieces of the replies it passes on.
 */
export const busClient = (nc: NatsConnection, config: Config, pieceCacheBytes?: number): BusClient =>
  new BusClient(nc, {
    timeoutMs: config.BUS_TIMEOUT_MS,
    checkReplies: config.NODE_ENV !== "production",
    pieceCacheBytes,
  });

/**
 * How long a starting process waits for NATS to take connections: a NATS
 * restart (an upgrade, a crash) takes seconds, and a service started meanwhile
 * by its supervisor should ride it out, not fail its start.
 */
const NATS_START_WAIT_MS = 30_000;
const NATS_START_RETRY_MS = 500;

/**
 * A connection that reconnects for ever once made. `log`: a starting
 * process's, to wait up to NATS_START_WAIT_MS for a server that refuses
 * connections; without it, a refusal fails at once.
 */
export function connectNats(config: Config, name: string, log?: Logger): Promise<NatsConnection> {
  const connection = () =>
    connect({
      servers: natsServers(config.NATS_URL),
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // nats.js otherwise builds an Error with a stack trace for every request up front, in case it
      // times out (under register load this halved notifications' time in building request errors;
      // the rest came from nats.js' cancel() after each answer, see nats-requests.ts); our timeouts
      // are logged with the operation and request id instead
      noAsyncTraces: true,
    });
  return askAgain(connection, {
    // refused, or a server that took the connection but never greeted it (one shutting down)
    passing: (err) => err instanceof ConnectionError || isTimeout(err),
    forMs: log ? NATS_START_WAIT_MS : 0,
    everyMs: NATS_START_RETRY_MS,
    onFirstFailure: (err) =>
      log?.warn(
        { err: (err as Error).message },
        `NATS refuses connections; trying again for up to ${NATS_START_WAIT_MS / 1000} s`,
      ),
  });
}

/**
 * Returns once the server has processed this connection's subscriptions. A
 * NATS restart in between rejects the flush ("connection disconnected"); the
 * client subscribes again as it reconnects, so the flush is asked again, for
 * as long as a starting process waits for NATS.
 */
const flushThroughRestart = (nc: NatsConnection): Promise<void> =>
  askAgain(() => nc.flush(), {
    passing: (err) => err instanceof RequestError && !nc.isClosed(),
    forMs: NATS_START_WAIT_MS,
    everyMs: NATS_START_RETRY_MS,
  });

/** Builds deps, starts the service, and drains on SIGTERM/SIGINT. */
export async function startService<S extends BusService>(
  name: S,
  factory: ServiceFactory<S>,
  config: Config,
  log: Logger,
): Promise<{
  deps: ServiceDeps<S>;
  running: RunningService;
  /** The METRICS_PORT listener, when that is set. */
  metricsListener?: MetricsListener;
  shutdown: () => Promise<void>;
}> {
  const nc = await connectNats(config, name, log);
  const metrics = ServiceMetrics.attach(nc, name);
  await ensureDomainEventStream(nc, {
    maxAgeSeconds: config.DOMAIN_EVENTS_MAX_AGE_HOURS * 3600,
    maxBytes: config.DOMAIN_EVENTS_MAX_MIB * 1024 * 1024,
    replicas: config.NATS_STREAM_REPLICAS,
  });
  const db = await connectDatabase(config.MONGO_URL, databaseName(config, name), metrics, log);
  const safety = writeSafety(db);
  log.info(
    { replicaSet: safety.replicaSet, writeConcern: safety.writeConcern, transactions: safety.transactions },
    safety.transactions
      ? "database is replicated: majority write concern, transactions for multi-document changes"
      : "database is a single server: default write concern, no transactions",
  );
  const server = await BusServer.start({
    nc,
    service: name,
    logger: log,
    concurrency: config.BUS_CONCURRENCY,
    validateReplies: config.NODE_ENV !== "production",
  });
  const deps: ServiceDeps<S> = {
    nc,
    db,
    config,
    log,
    bus: busClient(nc, config),
    server,
    events: new EventPublisher(nc, name, config.NODE_ENV !== "production", log, db),
    metrics,
  };
  const running = await factory(deps);
  server.announceReady();
  const metricsListener = await listenForMetrics(
    config,
    metrics,
    { nats: natsCheck(nc), database: databaseCheck(db) },
    log,
  );
  // The server has processed our subscriptions once a flush returns: only then is this instance reachable.
  await flushThroughRestart(nc);
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      running.beforeDrain?.();
      await server.drain();
      await running.stop?.();
      // events still held stay in the database: another instance (or the next start) relays them
      await deps.events.stop();
      await nc.drain().catch(() => undefined);
      await db.close();
      await metricsListener?.close();
    })());
  return { deps, running, metricsListener, shutdown };
}

/** The process's METRICS_PORT listener (see metrics-listener.ts), if the variable is set. */
export async function listenForMetrics(
  config: Config,
  metrics: ServiceMetrics,
  dependencies: Parameters<typeof startMetricsListener>[0]["dependencies"],
  log: Logger,
): Promise<MetricsListener | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  return startMetricsListener({ port: config.METRICS_PORT, host: config.METRICS_HOST, metrics, dependencies, log });
}

/** Entrypoint helper for `services/<name>/src/main.ts`. */
export function runService<S extends BusService>(name: S, factory: ServiceFactory<S>): void {
  const log = createLogger(name);
  const main = async () => {
    const config = loadConfig();
    const { shutdown } = await startService(name, factory, config, log);
    log.info("ready");
    const onSignal = (signal: string) => {
      log.info({ signal }, "draining");
      shutdown()
        .then(() => {
          log.info("stopped");
          process.exit(0);
        })
        .catch((err: unknown) => {
          log.error({ err }, "shutdown failed");
          process.exit(1);
        });
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  };
  main().catch((err: unknown) => {
    log.fatal({ err }, `${name} failed to start: check NATS_URL and MONGO_URL point at running servers`);
    process.exit(1);
  });
}
