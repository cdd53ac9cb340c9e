import { AsyncResource } from "node:async_hooks";

interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(err: unknown): void;
}

/**
 * One database command per key at a time in this process: calls that arrive
 * while the key's command runs wait, and the next command serves all of them
 * at once (`write` gets their inputs in arrival order and returns each one's
 * result). Alone, a call costs one command as before; under load, the sends
 * to one topic, the ids of one kind, a user's rate-limit counts or many users'
 * loads cost one command per round instead of one each (on SecantusDB each
 * command has a fixed cost: docs/adr/0022-write-coalescing.md,
 * docs/adr/0055-per-user-reads-coalesced.md). A read that arrives after a
 * write finished is served by a round that starts after it, so it sees the
 * write. The command runs outside its callers' async context, so it never
 * joins a caller's transaction or deadline.
 */
export class Coalescer<I, O> {
  private readonly queues = new Map<string, Array<Waiting<I, O>>>();
  // made at construction: its scope carries none of the callers' async-local state
  private readonly scope = new AsyncResource("Coalescer");
  /** the rounds waiting out `lingerMs`, each ended early by its function */
  private readonly lingering = new Set<() => void>();

  /**
   * `lingerMs`: a round waits this long after its first call before writing,
   * for work that may wait and costs less in larger rounds.
   */
  constructor(
    private readonly write: (key: string, inputs: I[]) => Promise<O[]>,
    private readonly lingerMs = 0,
  ) {}

  run(key: string, input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ input, resolve, reject });
        return;
      }
      const started: Array<Waiting<I, O>> = [{ input, resolve, reject }];
      this.queues.set(key, started);
      void this.scope.runInAsyncScope(() => this.drain(key, started));
    });
  }

  /** Rounds waiting for more are written now: a stopping service finishes what it took. */
  flush(): void {
    for (const end of [...this.lingering]) end();
  }

  private linger(): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.lingering.delete(end);
        resolve();
      };
      const timer = setTimeout(end, this.lingerMs);
      this.lingering.add(end);
    });
  }

  private async drain(key: string, queue: Array<Waiting<I, O>>): Promise<void> {
    while (queue.length) {
      if (this.lingerMs) await this.linger();
      const round = queue.splice(0);
      try {
        const outputs = await this.write(
          key,
          round.map((w) => w.input),
        );
        round.forEach((w, i) => w.resolve(outputs[i]!));
      } catch (err) {
        round.forEach((w) => w.reject(err));
      }
    }
    this.queues.delete(key);
  }
}
