import { remainingMs } from "./deadline";
import { ZulipError } from "./errors";

/**
 * At most `limit` calls of run() at once in this process; the others wait in
 * arrival order. For work whose cost is high per call (a user's state loaded
 * from the database): without it, many such loads at once share the database
 * and all finish late instead of most finishing early.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** a run's recent duration in ms (exponentially weighted): what a new caller can expect to wait */
  private meanRunMs = 0;

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    const started = Date.now();
    try {
      return await work();
    } finally {
      const ms = Date.now() - started;
      this.meanRunMs = this.meanRunMs ? 0.8 * this.meanRunMs + 0.2 * ms : ms;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /**
   * run(), unless the caller of the request being served would give up before
   * its turn ends: then a 503 at once, with the seconds to wait before trying
   * again (Retry-After), rather than a place in a queue that ends in a 504.
   */
  async runInTime<T>(work: () => Promise<T>): Promise<T> {
    const turns = this.running < this.limit ? 1 : Math.ceil((this.waiting.length + 1) / this.limit) + 1;
    const expectedMs = turns * this.meanRunMs;
    if (expectedMs > remainingMs()) {
      const seconds = Math.max(1, Math.ceil(expectedMs / 1000));
      throw new ZulipError(
        "SERVICE_UNAVAILABLE",
        `The server is busy loading other users' data; try again in ${seconds} s.`,
        503,
        { "retry-after": seconds },
      );
    }
    return this.run(work);
  }
}
