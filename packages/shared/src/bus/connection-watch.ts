import type { NatsConnection } from "@nats-io/transport-node";

/**
 * Whether a connection to NATS is up, and who waits on it. While it is down
 * (a NATS restart) a request or its reply is lost for good: the connection
 * would otherwise hold it until its timeout.
 */
export class ConnectionWatch {
  connected = true;
  private reconnectedAt = 0;
  private readonly waiting = new Set<() => void>();
  private readonly waitingForReconnect = new Set<() => void>();

  constructor(nc: NatsConnection) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect") {
          this.connected = false;
          for (const lost of this.waiting) lost();
          this.waiting.clear();
        } else if (status.type === "reconnect") {
          this.connected = true;
          this.reconnectedAt = Date.now();
          for (const back of this.waitingForReconnect) back();
          this.waitingForReconnect.clear();
        }
      }
    })();
  }

  /** Whether the connection is up within `ms` (at once when it is up now). */
  async upWithin(ms: number): Promise<boolean> {
    if (this.connected) return true;
    return new Promise((resolve) => {
      const back = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waitingForReconnect.delete(back);
        resolve(false);
      }, ms);
      this.waitingForReconnect.add(back);
    });
  }

  /** Whether the connection came back less than `ms` ago. */
  reconnectedWithin(ms: number): boolean {
    return Date.now() - this.reconnectedAt < ms;
  }

  /** Rejects with `err` as soon as the connection drops, unless `work` settles first. */
  async whileConnected<T>(work: Promise<T>, err: () => Error): Promise<T> {
    // once the drop has answered, the request's own failure (its timeout) comes later with no one waiting:
    // handled here, or it would end the process as an unhandled rejection
    work.catch(() => undefined);
    if (!this.connected) throw err();
    let lost!: () => void;
    const dropped = new Promise<never>((_, reject) => (lost = () => reject(err())));
    this.waiting.add(lost);
    try {
      return await Promise.race([work, dropped]);
    } finally {
      this.waiting.delete(lost);
    }
  }
}

/** One watch per connection, shared by every client on it. */
const watches = new WeakMap<NatsConnection, ConnectionWatch>();
export const watchOf = (nc: NatsConnection): ConnectionWatch => {
  let watch = watches.get(nc);
  if (!watch) watches.set(nc, (watch = new ConnectionWatch(nc)));
  return watch;
};
