/**
 * At most `limit` calls of run() at once in this process; the others wait in
 * arrival order. For work whose cost is high per call (a user's state loaded
 * from the database): without it, many such loads at once share the database
 * and all finish late instead of most finishing early.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
