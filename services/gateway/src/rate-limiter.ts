import type { KV } from "@nats-io/kv";

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
 * entry's revision makes concurrent increments safe; old windows expire with
 * the bucket's TTL.
 */
export class RateLimiter {
  constructor(
    private readonly kv: KV,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  async hit(key: string, now = Date.now()): Promise<RateDecision> {
    const window = Math.floor(now / 1000 / this.windowSeconds);
    const reset = (window + 1) * this.windowSeconds;
    const k = `${key}.${window}`;
    for (let attempt = 0; ; attempt++) {
      const entry = await this.kv.get(k);
      const used = entry && entry.length > 0 ? Number(entry.string()) : 0;
      if (used >= this.limit) {
        return { allowed: false, limit: this.limit, remaining: 0, reset, retryAfter: Math.max(1, reset - now / 1000) };
      }
      try {
        if (entry) await this.kv.update(k, String(used + 1), entry.revision);
        else await this.kv.create(k, String(used + 1));
        return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, reset, retryAfter: 0 };
      } catch (err) {
        // Another request won the race for this revision: read again.
        if (attempt >= 20) throw err;
      }
    }
  }
}
