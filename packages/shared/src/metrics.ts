import type { NatsConnection } from "@nats-io/transport-node";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Every metric name starts with this, process and Node.js defaults included. */
export const METRIC_PREFIX = "teamchat_";

/** Seconds: 1 ms to 10 s, where request, publish and database latencies fall (and the 10 s bus timeout). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: event lag from publish to handling, up to the minutes an event waits while no consumer runs. */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * A count kept as a plain number on a hot path and added to its counter's series when the registry is
 * scraped: prom-client's inc() hashes the series' labels at every call, 3 % of messaging's CPU under the
 * is:unread load (a look-up of each of the user's 50 channels per request).
 */
export class Tally {
  private pending = 0;

  constructor(private readonly series: Counter.Internal) {}

  inc(): void {
    this.pending++;
  }

  flush(): void {
    if (this.pending === 0) return;
    this.series.inc(this.pending);
    this.pending = 0;
  }
}

/**
 * The Prometheus metrics of one service instance (one process in production;
 * the in-process test systems run several, each with its own registry). Every
 * series carries the `service` label. Labels are operation, event, cache and
 * collection names, never ids, so the number of series stays bounded.
 *
 * The shared machinery (bus server and client, event publisher and durable
 * consumers, caches, the database connection) finds the instance's metrics
 * through its NATS connection (`metricsOf`), as every one of them is built
 * on it; services add their own metrics to `registry`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  /** Requests a bus server answered, by operation (subject) and outcome: `OK` or the Zulip error code. */
  readonly busRequests: Counter<"operation" | "code">;
  readonly busRequestSeconds: Histogram<"operation">;
  /** Bus requests this instance made that failed on the way: `timeout`, `no_responders`, `unavailable`, `error`. */
  readonly busClientFailures: Counter<"operation" | "reason">;
  /** Bytes of shared pieces in the replies this instance got (shared-pieces.ts): `attached` to one, or `held` here. */
  readonly sharedPieceBytes: Counter<"operation" | "source">;
  /** Domain events stored in the stream, and the wait for the store's acknowledgement. */
  readonly eventsPublished: Counter<"event">;
  readonly eventPublishFailures: Counter<"event">;
  readonly eventPublishSeconds: Histogram;
  /** Durable consumers: time from publish to handled, events handled (`ok`, `retry`, `dropped`), and what waits. */
  readonly eventConsumeLagSeconds: Histogram<"consumer">;
  readonly eventsConsumed: Counter<"consumer" | "outcome">;
  readonly eventConsumerPending: Gauge<"consumer">;
  /** EventCache look-ups: `hit` (held or being loaded) or `miss` (a load started). */
  readonly cacheLookups: Counter<"cache" | "result">;
  /** Database commands as the driver saw them: round trip by command and collection, and failures. */
  readonly dbCommandSeconds: Histogram<"command" | "collection">;
  readonly dbCommandFailures: Counter<"command" | "collection">;
  /**
   * What the database commands carried, by command and collection: statements (an insert's documents, an
   * update's or delete's statements, 1 for any other command), the documents they wrote as the server
   * reported them (one multi-document update statement can write many), and the documents they returned.
   */
  readonly dbStatements: Counter<"command" | "collection">;
  readonly dbDocumentsWritten: Counter<"command" | "collection">;
  readonly dbDocumentsReturned: Counter<"command" | "collection">;
  /** Notification work (NOTIFICATION_WORK stream) published by kind, and its items handled here by consumer and outcome. */
  readonly notificationWorkPublished: Counter<"kind">;
  readonly notificationWorkHandled: Counter<"consumer" | "outcome">;
  /** Mail handed to the transport by kind (missed_message, invitation, login, digest): `sent` or `failed`. */
  readonly mailSent: Counter<"kind" | "outcome">;

  /** the cache look-ups' tallies, flushed when cacheLookups is scraped */
  private readonly lookupTallies: Tally[] = [];

  /** `processMetrics`: prom-client's defaults (CPU, memory, heap, event loop, GC), once per process that is served. */
  constructor(
    readonly service: string,
    processMetrics = true,
  ) {
    this.registry.setDefaultLabels({ service });
    if (processMetrics) collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    const registers = [this.registry];
    const name = (n: string) => METRIC_PREFIX + n;
    const counter = <L extends string>(n: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name: name(n), help, labelNames, registers });
    this.busRequests = counter(
      "bus_requests_total",
      "Bus requests answered, by operation and outcome (OK or the Zulip error code)",
      ["operation", "code"],
    );
    this.busRequestSeconds = new Histogram({
      name: name("bus_request_duration_seconds"),
      help: "Time from a bus request's arrival to its reply (waiting for a handler slot included)",
      labelNames: ["operation"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.busClientFailures = counter(
      "bus_client_failures_total",
      "Bus requests made by this instance that got no answer: timeout, no_responders, unavailable, error",
      ["operation", "reason"],
    );
    this.sharedPieceBytes = counter(
      "shared_piece_bytes_total",
      "Bytes of shared pieces put into the replies this instance got: attached to the reply, or held here",
      ["operation", "source"],
    );
    this.eventsPublished = counter(
      "events_published_total",
      "Domain events stored in the DOMAIN_EVENTS stream, by event subject",
      ["event"],
    );
    this.eventPublishFailures = counter(
      "event_publish_failures_total",
      "Domain events the stream did not acknowledge after every attempt",
      ["event"],
    );
    this.eventPublishSeconds = new Histogram({
      name: name("event_publish_duration_seconds"),
      help: "Time until the stream acknowledged a domain event (retries included)",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.eventConsumeLagSeconds = new Histogram({
      name: name("event_consume_lag_seconds"),
      help: "Time from a domain event's publish to the end of its handling by a durable consumer",
      labelNames: ["consumer"],
      buckets: LAG_BUCKETS,
      registers,
    });
    this.eventsConsumed = counter(
      "events_consumed_total",
      "Domain events a durable consumer delivered here: ok, retry (handler failed, delivered again), dropped",
      ["consumer", "outcome"],
    );
    this.eventConsumerPending = new Gauge({
      name: name("event_consumer_pending"),
      help: "Events waiting in a durable consumer, as of its latest delivery here",
      labelNames: ["consumer"],
      registers,
    });
    const tallies = this.lookupTallies;
    this.cacheLookups = new Counter({
      name: name("cache_lookups_total"),
      help: "EventCache look-ups by cache: hit (held, or joined a load under way) or miss (loaded)",
      labelNames: ["cache", "result"],
      registers,
      collect: () => tallies.forEach((t) => t.flush()),
    });
    this.dbCommandSeconds = new Histogram({
      name: name("db_command_duration_seconds"),
      help: "Database command round trips, by command and collection",
      labelNames: ["command", "collection"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.dbCommandFailures = counter(
      "db_command_failures_total",
      "Database commands that failed, by command and collection",
      ["command", "collection"],
    );
    this.dbStatements = counter(
      "db_statements_total",
      "Statements sent in database commands: an insert's documents, an update's or delete's statements, else 1",
      ["command", "collection"],
    );
    this.dbDocumentsWritten = counter(
      "db_documents_written_total",
      "Documents inserted, modified, upserted or deleted by database commands, as the server reported them",
      ["command", "collection"],
    );
    this.dbDocumentsReturned = counter(
      "db_documents_returned_total",
      "Documents database commands returned (cursor batches, findAndModify's document)",
      ["command", "collection"],
    );
    this.notificationWorkPublished = counter(
      "notification_work_published_total",
      "Missed-message notifications, push removals and digests queued in the NOTIFICATION_WORK stream, by kind",
      ["kind"],
    );
    this.notificationWorkHandled = counter(
      "notification_work_handled_total",
      "NOTIFICATION_WORK items a consumer handled here: ok, retry (failed, delivered again after a back-off), dropped",
      ["consumer", "outcome"],
    );
    this.mailSent = counter(
      "mail_sent_total",
      "Mail handed to the mail transport, by kind: sent, or failed (tried again later where the kind allows)",
      ["kind", "outcome"],
    );
  }

  /** A cache's look-ups of one result (`hit`, `miss`), counted as a Tally. */
  lookupTally(cache: string, result: "hit" | "miss"): Tally {
    const tally = new Tally(this.cacheLookups.labels({ cache, result }));
    this.lookupTallies.push(tally);
    return tally;
  }

  /** The instance's metrics from now on are those reached through `nc` (see metricsOf). */
  static attach(nc: NatsConnection, service: string, processMetrics = true): ServiceMetrics {
    const metrics = new ServiceMetrics(service, processMetrics);
    byConnection.set(nc, metrics);
    return metrics;
  }
}

const byConnection = new WeakMap<NatsConnection, ServiceMetrics>();

/**
 * The metrics of the service instance that owns the connection. A connection
 * no service attached (a script's, a test's) gets metrics of its own that no
 * listener serves.
 */
export function metricsOf(nc: NatsConnection): ServiceMetrics {
  return byConnection.get(nc) ?? ServiceMetrics.attach(nc, "client", false);
}
