/**
 * Coalescer: one write per key at a time; what arrives meanwhile is served
 * by the next write, each caller getting its own result, outside the callers'
 * async context.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Coalescer } from "../src/coalescer";

/** A write that waits until released, recording what each call of it got. */
function gatedWrites() {
  const calls: Array<{ key: string; inputs: number[] }> = [];
  const gates: Array<() => void> = [];
  const coalescer = new Coalescer<number, string>(async (key, inputs) => {
    calls.push({ key, inputs });
    await new Promise<void>((release) => gates.push(release));
    if (inputs.includes(-1)) throw new Error("refused");
    return inputs.map((n) => `${key}:${n}`);
  });
  const releaseNext = async () => {
    while (!gates.length) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { coalescer, calls, releaseNext };
}

it("serves the calls made during a write with one next write, each with its own result", async () => {
  const { coalescer, calls, releaseNext } = gatedWrites();
  const first = coalescer.run("k", 1);
  const later = [coalescer.run("k", 2), coalescer.run("k", 3), coalescer.run("k", 4)];
  await releaseNext();
  expect(await first).toBe("k:1");
  await releaseNext();
  expect(await Promise.all(later)).toEqual(["k:2", "k:3", "k:4"]);
  expect(calls).toEqual([
    { key: "k", inputs: [1] },
    { key: "k", inputs: [2, 3, 4] },
  ]);
});

it("writes different keys independently", async () => {
  const { coalescer, calls, releaseNext } = gatedWrites();
  const a = coalescer.run("a", 1);
  const b = coalescer.run("b", 1);
  expect(calls).toEqual([
    { key: "a", inputs: [1] },
    { key: "b", inputs: [1] },
  ]);
  await releaseNext();
  await releaseNext();
  expect(await Promise.all([a, b])).toEqual(["a:1", "b:1"]);
});

it("fails only the round whose write failed; the next round still runs", async () => {
  const { coalescer, calls, releaseNext } = gatedWrites();
  const failing = coalescer.run("k", -1);
  const next = coalescer.run("k", 5);
  await releaseNext();
  await expect(failing).rejects.toThrow("refused");
  await releaseNext();
  expect(await next).toBe("k:5");
  expect(calls.map((c) => c.inputs)).toEqual([[-1], [5]]);
});

it("runs the write outside the caller's async-local state (a transaction or deadline stays the caller's)", async () => {
  const store = new AsyncLocalStorage<string>();
  let seen: string | undefined = "not run";
  const coalescer = new Coalescer<number, number>(async (_key, inputs) => {
    seen = store.getStore();
    return inputs;
  });
  await store.run("caller's transaction", () => coalescer.run("k", 1));
  expect(seen).toBeUndefined();
});

it("with a linger, holds a round open that long so that calls made meanwhile share its write", async () => {
  const calls: number[][] = [];
  const coalescer = new Coalescer<number, number>(async (_, inputs) => {
    calls.push(inputs);
    return inputs.map((n) => n * 10);
  }, 50);
  const first = coalescer.run("k", 1);
  await new Promise((r) => setTimeout(r, 10));
  const second = coalescer.run("k", 2);
  expect(await Promise.all([first, second])).toEqual([10, 20]);
  // a call after the round was written starts a round of its own
  expect(await coalescer.run("k", 3)).toBe(30);
  expect(calls).toEqual([[1, 2], [3]]);
});

it("a flush writes the rounds waiting out their linger at once, with what they hold", async () => {
  const calls: number[][] = [];
  const coalescer = new Coalescer<number, number>(async (_, inputs) => {
    calls.push(inputs);
    return inputs.map((n) => n * 10);
  }, 60_000);
  const started = performance.now();
  const waiting = [coalescer.run("a", 1), coalescer.run("a", 2), coalescer.run("b", 3)];
  await new Promise((r) => setImmediate(r));
  expect(calls).toEqual([]);
  coalescer.flush();
  expect(await Promise.all(waiting)).toEqual([10, 20, 30]);
  expect(calls).toEqual([[1, 2], [3]]);
  expect(performance.now() - started).toBeLessThan(1000);
});
