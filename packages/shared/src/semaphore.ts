import { remainingMs } from "./deadline";
import { ZulipError } from "./errors";

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
  /** epoch ms when its caller stops waiting (Infinity: never) */
  deadline: number;
}

/** Runs per slot, the first a semaphore ends, whose durations it does not go by (Semaphore.meanRunMs). */
const WARM_RUNS_PER_SLOT = 2;

/** The refusal of a caller who would wait past its deadline, with the seconds to wait before trying again. */
function busy(expectedMs: number): ZulipError {
  const seconds = Math.max(1, Math.ceil(expectedMs / 1000));
  return new ZulipError(
    "SERVICE_UNAVAILABLE",
    `The server is busy loading other users' data; try again in ${seconds} s.`,
    503,
    { "retry-after": seconds },
  );
}

/**
 * At most `limit` calls of run() at once in this process; the others wait in
 * arrival order. For work whose cost is high per call (a user's state loaded
 * from the database): without it, many such loads at once share the database
 * and all finish late instead of most finishing early.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /**
   * a run's recent duration in ms (exponentially weighted), what a caller can expect to wait; 0
   * until the first runs are over: those of a process just started are its slowest (its code not
   * yet optimized, every client arriving at once), and refused callers who were then served in time
   */
  private meanRunMs = 0;
  /** runs not measured yet, of the first WARM_RUNS_PER_SLOT per slot */
  private unmeasured: number;

  constructor(private readonly limit: number) {
    this.unmeasured = WARM_RUNS_PER_SLOT * limit;
  }

  async run<T>(work: () => Promise<T>, deadline = Infinity): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject, deadline }));
    } else this.running++;
    const started = Date.now();
    try {
      return await work();
    } finally {
      const ms = Date.now() - started;
      if (this.unmeasured > 0) this.unmeasured--;
      else this.meanRunMs = this.meanRunMs ? 0.8 * this.meanRunMs + 0.2 * ms : ms;
      this.refuseLate();
      const next = this.waiting.shift();
      if (next) next.resolve();
      else this.running--;
    }
  }

  /**
   * run(), unless the caller of the request being served would give up before
   * its turn ends: then a 503 with the seconds to wait before trying again
   * (Retry-After) at once, or as soon as the runs ahead show it, rather than a
   * place in a queue that ends in a 504.
   */
  async runInTime<T>(work: () => Promise<T>): Promise<T> {
    const remaining = remainingMs();
    // a free slot is always taken: only a queue is worth refusing, and only runs move the estimate
    // (refused by runs that were slow during a database stall, callers kept being refused after it)
    if (this.running < this.limit) return this.run(work, Date.now() + remaining);
    const expectedMs = this.expectedMs(this.waiting.length);
    if (expectedMs > remaining) throw busy(expectedMs);
    return this.run(work, Date.now() + remaining);
  }

  /** When the waiter at this place in the queue can expect its run to end, in ms from now. */
  private expectedMs(place: number): number {
    return (Math.floor(place / this.limit) + 1) * this.meanRunMs;
  }

  /** Refuses the waiters whose run would end after their deadline, by what the runs so far took. */
  private refuseLate(): void {
    const now = Date.now();
    for (let place = 0; place < this.waiting.length;) {
      const waiter = this.waiting[place]!;
      const expectedMs = this.expectedMs(place);
      if (now + expectedMs <= waiter.deadline) {
        place++;
        continue;
      }
      this.waiting.splice(place, 1);
      waiter.reject(busy(expectedMs));
    }
  }
}
