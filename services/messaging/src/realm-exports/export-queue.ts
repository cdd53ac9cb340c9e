import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstream, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { configureThroughElection, ensureStream, streamManager } from "@teamchat/shared";

const STREAM = "REALM_EXPORTS";
const SUBJECT = "jobs.realm_export";
const WORKERS = "realm-export-workers";
/** How long one pull waits for a job before asking again (and noticing a stop). */
const PULL_EXPIRES_MS = 5_000;
/** A job that fails this often (its instance died each time) is given up. */
const MAX_DELIVERIES = 5;

export interface ExportJob {
  realmId: number;
  exportId: number;
}

/**
 * Realm exports as durable jobs, in place of Zulip's deferred_work queue: a
 * JetStream work-queue stream holds each requested export until an instance
 * acknowledges it done. An instance takes one job at a time and says every
 * third of `claimSeconds` that it still works on it; when it dies, the job is
 * delivered again after `claimSeconds` to whichever instance asks next. An
 * instance that stops, or loses its connection, aborts its job (the signal
 * `run` gets) and hands it back at once where it still can.
 */
export type ExportJobRunner = (job: ExportJob, signal: AbortSignal) => Promise<void>;

export class ExportQueue {
  private stopped = false;
  private loop?: Promise<void>;
  private readonly stopping = new AbortController();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly claimSeconds: number,
    private readonly log: Logger,
  ) {}

  static async open(nc: NatsConnection, replicas: number, claimSeconds: number, log: Logger): Promise<ExportQueue> {
    const jsm = await streamManager(nc);
    await ensureStream(jsm, {
      name: STREAM,
      subjects: [SUBJECT],
      storage: StorageType.File,
      retention: RetentionPolicy.Workqueue,
      num_replicas: replicas,
    });
    await configureThroughElection(() =>
      jsm.consumers.add(STREAM, {
        durable_name: WORKERS,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: claimSeconds * 1e9,
        max_deliver: MAX_DELIVERIES,
      }),
    );
    // an existing consumer keeps its settings unless updated (a changed claim time)
    await configureThroughElection(() => jsm.consumers.update(STREAM, WORKERS, { ack_wait: claimSeconds * 1e9 }));
    return new ExportQueue(nc, claimSeconds, log);
  }

  async enqueue(job: ExportJob): Promise<void> {
    await jetstream(this.nc).publish(SUBJECT, JSON.stringify(job));
  }

  /** Takes jobs one at a time until stopped; `run` resolving acknowledges the job, throwing leaves it to be retried. */
  start(run: ExportJobRunner): void {
    void this.nc.closed().then(() => this.stopping.abort());
    this.loop = this.work(run);
  }

  /** Stops taking jobs; one under way is aborted and handed back. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.loop;
  }

  private async work(run: ExportJobRunner): Promise<void> {
    const consumer = await configureThroughElection(() => jetstream(this.nc).consumers.get(STREAM, WORKERS));
    while (!this.stopped && !this.nc.isClosed()) {
      try {
        const msg = await consumer.next({ expires: PULL_EXPIRES_MS });
        if (msg) await this.handle(msg, run);
      } catch (err) {
        if (this.stopped || this.nc.isClosed()) return;
        this.log.warn({ err }, "realm export queue: pull failed");
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async handle(msg: JsMsg, run: ExportJobRunner): Promise<void> {
    const keepClaim = setInterval(() => msg.working(), (this.claimSeconds * 1000) / 3);
    try {
      await run(msg.json<ExportJob>(), this.stopping.signal);
      msg.ack();
    } catch (err) {
      if (this.stopping.signal.aborted) {
        this.log.info({ delivery: msg.info.deliveryCount }, "realm export handed back as this instance stops");
        if (!this.nc.isClosed()) msg.nak();
        return;
      }
      // unexpected (the database out of reach): tried again, here or elsewhere, after a claim's time
      this.log.error({ err, delivery: msg.info.deliveryCount }, "realm export attempt failed; it will be retried");
      msg.nak(this.claimSeconds * 1000);
    } finally {
      clearInterval(keepClaim);
    }
  }
}
