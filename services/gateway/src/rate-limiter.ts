import type { KV, KvEntry } from "@nats-io/kv";
import { Coalescer, isWrongLastSequence, type Logger } from "@teamchat/shared";

/** Between two attempts to make the bucket again. */
const REOPEN_PAUSE_MS = 1_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** UNIX seconds when the window resets */
  reset: number;
  /** seconds to wait when refused */
  retryAfter: number;
}

/**
 * Fixed-window counter per key in a NATS JetStream KV bucket, so that every
 * gateway instance counts against the same total. Compare-and-set on the
 * entry's revision makes increments exact across instances; requests for the
 * same key arriving together in this instance are counted in one
 * compare-and-set (+n), so a busy user does not make its own requests collide.
 * Old windows expire with the bucket's TTL.
 */
export class RateLimiter {
  /** a key's requests arriving while its count runs are counted together by the next one */
  private readonly counts = new Coalescer<void, RateDecision>((key, calls) => this.count(key, calls.length));
  /** each key's count and revision as this instance last wrote them (current window keys only) */
  private readonly lastWritten = new Map<string, { used: number; revision: number }>();
  private kv: KV;
  private reopening: Promise<void> | undefined;

  private constructor(
    /** creates the bucket, or opens it when it exists */
    private readonly openBucket: () => Promise<KV>,
    kv: KV,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly log: Logger,
  ) {
    this.kv = kv;
  }

  static async open(
    openBucket: () => Promise<KV>,
    limit: number,
    windowSeconds: number,
    log: Logger,
  ): Promise<RateLimiter> {
    return new RateLimiter(openBucket, await openBucket(), limit, windowSeconds, log);
  }

  /**
   * The counters are unreachable (NATS restarting; its memory-stored bucket is
   * gone after a restart): requests are let through uncounted rather than
   * refused, and the bucket is made again, once at a time.
   */
  private unavailable(err: unknown, n: number): RateDecision[] {
    this.reopening ??= this.openBucket()
      .then((kv) => void (this.kv = kv))
      .catch(() => undefined)
      .finally(() => setTimeout(() => (this.reopening = undefined), REOPEN_PAUSE_MS));
    this.log.warn({ err }, "rate-limit counters unreachable: request not counted");
    const reset = Math.ceil(Date.now() / 1000);
    return Array.from({ length: n }, () => ({
      allowed: true,
      limit: this.limit,
      remaining: this.limit,
      reset,
      retryAfter: 0,
    }));
  }

  hit(key: string): Promise<RateDecision> {
    return this.counts.run(key, undefined);
  }

  private remember(k: string, written: { used: number; revision: number }): void {
    // keys of past windows are of no more use: forget them when the map grows
    if (this.lastWritten.size > 10_000) this.lastWritten.clear();
    this.lastWritten.set(k, written);
  }

  /** Counts `n` requests in the current window; the first ones fit, those past the limit are refused. */
  private async count(key: string, n: number): Promise<RateDecision[]> {
    for (let attempt = 0; ; attempt++) {
      const now = Date.now() / 1000;
      const window = Math.floor(now / this.windowSeconds);
      const reset = (window + 1) * this.windowSeconds;
      const k = `${key}.${window}`;
      // What this instance last wrote is usually still current: counting on it saves a read per
      // request; if another gateway counted since, the compare-and-set fails and we read.
      let known = attempt === 0 ? this.lastWritten.get(k) : undefined;
      if (!known) {
        let entry: KvEntry | null;
        try {
          entry = await this.kv.get(k);
        } catch (err) {
          return this.unavailable(err, n);
        }
        known = entry && entry.length > 0 ? { used: Number(entry.string()), revision: entry.revision } : undefined;
      }
      const used = known?.used ?? 0;
      const granted = Math.max(0, Math.min(n, this.limit - used));
      try {
        if (granted > 0) {
          const revision = known
            ? await this.kv.update(k, String(used + granted), known.revision)
            : await this.kv.create(k, String(used + granted));
          this.remember(k, { used: used + granted, revision });
        }
      } catch (err) {
        this.lastWritten.delete(k);
        // a compare-and-set that lost to another gateway's write
        if (!isWrongLastSequence(err)) return this.unavailable(err, n);
        // Another gateway counted first: read again, after a short random pause.
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 5));
        continue;
      }
      return Array.from({ length: n }, (_, i) => decide(this.limit, used + i, reset, now));
    }
  }
}

/** A request's decision when `used` requests of its window came before it. */
const decide = (limit: number, used: number, reset: number, now: number): RateDecision =>
  used < limit
    ? { allowed: true, limit, remaining: limit - used - 1, reset, retryAfter: 0 }
    : { allowed: false, limit, remaining: 0, reset, retryAfter: Math.max(1, reset - now) };

/**
 * Counts in this gateway's memory only, for the operations whose contract asks
 * for it (`rateLimit: "instance"`): those Zulip serves from its Tornado process
 * (GET and DELETE /events), which counts them in that process's memory
 * (TornadoInMemoryRateLimiterBackend). A client's long-polls are many, one per
 * event when events are frequent, and the shared counter would cost a
 * JetStream write per poll.
 */
export class InstanceRateLimiter {
  private window = -1;
  /** the current window's counts, by key */
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  hit(key: string): RateDecision {
    const now = Date.now() / 1000;
    const window = Math.floor(now / this.windowSeconds);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const used = this.counts.get(key) ?? 0;
    if (used < this.limit) this.counts.set(key, used + 1);
    return decide(this.limit, used, (window + 1) * this.windowSeconds, now);
  }
}
