import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { openBucket, type Logger } from "@teamchat/shared";

const BUCKET = "notifications_fanout";
const KEY = "leader";
/** How long the lease outlives its holder's last renewal: the fan-out's pause after its instance is killed. */
const LEASE_MS = 5_000;
/** How often the holder renews its lease and the others look whether it has lapsed. */
const RENEW_MS = 1_000;

/**
 * One notifications instance at a time runs the fan-out, so that each queue
 * gets its events in the domain stream's order: two instances appending
 * consecutive events in parallel could store them reversed. The instance
 * holding the bucket's `leader` key (a lease: the bucket's TTL removes it
 * LEASE_MS after its last renewal) consumes; the others look every RENEW_MS
 * and take it once it has lapsed (its holder killed or cut off from NATS).
 * Meanwhile the events wait in the durable consumer: a pause, nothing lost.
 * A holder that fails to renew stops consuming at once, long before its lease
 * lapses, unless the key still names it (a renewal lost in a NATS restart).
 */
export async function leadFanout(
  nc: NatsConnection,
  replicas: number,
  log: Logger,
  start: () => Promise<{ stop(): Promise<void> }>,
): Promise<{ stop(): Promise<void> }> {
  const kv = await openBucket(jetstream(nc), BUCKET, { ttl: LEASE_MS, history: 1, replicas });
  const lease = new Lease(kv, randomUUID());
  let running: { stop(): Promise<void> } | undefined;
  let turn = Promise.resolve();
  const step = async () => {
    const held = await lease.keep().catch(() => false);
    if (held && !running) {
      running = await start();
      log.info("this instance runs the event fan-out");
    } else if (!held && running) {
      const stopping = running;
      running = undefined;
      log.warn("lease of the event fan-out lost: another instance takes over");
      await stopping.stop();
    }
  };
  // one step at a time: a slow one (NATS out of reach) delays the next instead of overlapping it
  const timer = setInterval(() => (turn = turn.then(step)), RENEW_MS);
  turn = turn.then(step);
  await turn;
  return {
    stop: async () => {
      clearInterval(timer);
      await turn;
      await running?.stop();
      // a clean stop hands over at once instead of after the lease
      if (running) await lease.release().catch(() => undefined);
      running = undefined;
    },
  };
}

/** The `leader` key as this instance sees it: whether it holds it, renewing or taking it as it can. */
class Lease {
  private revision: number | undefined;

  constructor(
    private readonly kv: KV,
    private readonly holder: string,
  ) {}

  /** Renews the lease when held, takes it when free; whether this instance holds it now. */
  async keep(): Promise<boolean> {
    if (this.revision !== undefined && (await this.renew(this.revision))) return true;
    const entry = await this.kv.get(KEY);
    if (entry && entry.operation === "PUT") {
      if (entry.string() !== this.holder) return false;
      // still ours: a renewal whose answer was lost
      return this.renew(entry.revision);
    }
    try {
      this.revision = await this.kv.create(KEY, this.holder);
      return true;
    } catch {
      // another instance took it first
      return false;
    }
  }

  private async renew(revision: number): Promise<boolean> {
    try {
      this.revision = await this.kv.update(KEY, this.holder, revision);
      return true;
    } catch {
      this.revision = undefined;
      return false;
    }
  }

  async release(): Promise<void> {
    if (this.revision !== undefined) await this.kv.delete(KEY, { previousSeq: this.revision });
    this.revision = undefined;
  }
}
