import { AsyncResource } from "node:async_hooks";

interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(err: unknown): void;
}

/**
 * One write per key at a time in this process: calls that arrive while the
 * key's write runs wait, and the next write serves all of them at once
 * (`write` gets their inputs in arrival order and returns each one's result).
 * Alone, a call costs one write as before; under load, the sends to one topic,
 * the ids of one kind or a user's rate-limit counts cost one write per round
 * instead of one each (on SecantusDB each command has a fixed cost, the
 * bottleneck of a send: docs/adr/0022-write-coalescing.md). The write runs
 * outside its callers' async context, so it never joins a caller's
 * transaction or deadline.
 */
export class WriteCoalescer<I, O> {
  private readonly queues = new Map<string, Array<Waiting<I, O>>>();
  // made at construction: its scope carries none of the callers' async-local state
  private readonly scope = new AsyncResource("WriteCoalescer");

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

  private async drain(key: string, queue: Array<Waiting<I, O>>): Promise<void> {
    while (queue.length) {
      if (this.lingerMs) await new Promise((resolve) => setTimeout(resolve, this.lingerMs));
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
