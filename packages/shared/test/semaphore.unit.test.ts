import { setTimeout as sleep } from "node:timers/promises";
import { Semaphore, withDeadline, ZulipError } from "../src";

const slow = (ms: number) => () => sleep(ms).then(() => ms);

/** The first two runs per slot, which a semaphore does not go by. */
const warmUp = async (loads: Semaphore, slots: number) => {
  for (let i = 0; i < 2 * slots; i++) await loads.run(slow(1));
};

describe("Semaphore.runInTime", () => {
  test("a caller whose deadline would pass in the queue gets a 503 with retry-after at once", async () => {
    const loads = new Semaphore(1);
    await warmUp(loads, 1);
    await loads.run(slow(100)); // one run measured: about 100 ms each
    const queued = [loads.run(slow(100)), loads.run(slow(100)), loads.run(slow(100))];
    const started = Date.now();
    const refused = await withDeadline(Date.now() + 250, () => loads.runInTime(slow(1))).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(50);
    expect(refused).toBeInstanceOf(ZulipError);
    expect(refused).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      status: 503,
      extra: { "retry-after": 1 },
      message: "The server is busy loading other users' data; try again in 1 s.",
    });
    await Promise.all(queued);
  });

  test("callers queued before any run was measured are refused as soon as the first run shows they would be late", async () => {
    const loads = new Semaphore(1);
    await warmUp(loads, 1);
    const started = Date.now();
    const outcomes = await withDeadline(started + 250, () =>
      Promise.all(
        Array.from({ length: 5 }, () =>
          loads.runInTime(slow(100)).then(
            () => ({ ok: true, at: Date.now() - started }),
            (e: unknown) => ({ ok: false, at: Date.now() - started, code: (e as ZulipError).code }),
          ),
        ),
      ),
    );
    // the first two end by the deadline (100 and 200 ms); the other three hear at once after the first run
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false, false, false]);
    for (const refused of outcomes.slice(2)) {
      expect(refused).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      expect(refused.at).toBeLessThan(150);
    }
  });

  test("a caller with time for the queue ahead waits its turn and runs", async () => {
    const loads = new Semaphore(2);
    await warmUp(loads, 2);
    await loads.run(slow(50));
    const queued = [loads.run(slow(50)), loads.run(slow(50)), loads.run(slow(50))];
    await expect(withDeadline(Date.now() + 2_000, () => loads.runInTime(slow(1)))).resolves.toBe(1);
    await Promise.all(queued);
  });

  test("slow runs of the past (a stalled database) refuse no one while a slot is free", async () => {
    const loads = new Semaphore(1);
    await warmUp(loads, 1);
    await loads.run(slow(300)); // the stall: about 300 ms a run
    // nobody ahead: the caller runs, and its quick run is what the next callers are told of
    for (let i = 0; i < 3; i++) {
      await expect(withDeadline(Date.now() + 100, () => loads.runInTime(slow(1)))).resolves.toBe(1);
    }
  });

  test("outside a request with a deadline, nothing is refused", async () => {
    const loads = new Semaphore(1);
    await warmUp(loads, 1);
    await loads.run(slow(200));
    const queued = loads.run(slow(200));
    await expect(loads.runInTime(slow(1))).resolves.toBe(1);
    await queued;
  });

  test("a process's first, slow runs refuse no one: the callers behind them are served in time", async () => {
    const loads = new Semaphore(1);
    const started = Date.now();
    // the first two runs take 200 ms (code not yet optimized), those after 20 ms: all five end by 300 ms
    const durations = [200, 200, 20, 20, 20];
    const outcomes = await withDeadline(started + 600, () =>
      Promise.all(
        durations.map((ms) =>
          loads.runInTime(slow(ms)).then(
            () => "served",
            () => "refused",
          ),
        ),
      ),
    );
    expect(outcomes).toEqual(["served", "served", "served", "served", "served"]);
    expect(Date.now() - started).toBeLessThan(600);
  });
});
