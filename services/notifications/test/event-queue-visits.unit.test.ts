/**
 * When GET /events' visits write a queue down (its expiry, its acknowledged
 * events purged): queues that clients made together, as after a restart, must
 * not all write and purge in the same seconds of every period.
 */
import { randomUUID } from "node:crypto";
import { EXPIRY_MARGIN_MS, isVisitWritten } from "../src/event-store";

const LIFESPAN_SECS = 600;
const WAIT_MS = 50_000;
const LIFE_MS = LIFESPAN_SECS * 1000 + WAIT_MS;

/** Seconds at which a queue made at 0 and polled every second is written down, up to `untilS`. */
function writeTimes(queueId: string, untilS: number): number[] {
  const q = { queueId, lifespanSecs: LIFESPAN_SECS };
  let expiresAt = LIFE_MS;
  const writes: number[] = [];
  for (let s = 1; s <= untilS; s++) {
    if (!isVisitWritten(q, expiresAt - s * 1000, WAIT_MS)) continue;
    writes.push(s);
    expiresAt = s * 1000 + LIFE_MS;
  }
  return writes;
}

/** The most writes of these times falling in one 10-second window. */
function busiestTenSeconds(times: number[]): number {
  const buckets = new Map<number, number>();
  for (const t of times) buckets.set(Math.floor(t / 10), (buckets.get(Math.floor(t / 10)) ?? 0) + 1);
  return Math.max(...buckets.values());
}

describe("event queue visits", () => {
  const queues = Array.from({ length: 200 }, () => randomUUID());
  const times = queues.map((id) => writeTimes(id, 3600));

  it("writes each queue while 30–70 % of its life is left, never letting it expire", () => {
    for (const writes of times) {
      const gaps = writes.map((t, i) => t - (i === 0 ? 0 : writes[i - 1]!));
      const gap = gaps[0]!;
      expect(gap).toBeGreaterThanOrEqual(Math.floor((0.3 * LIFE_MS) / 1000));
      expect(gap).toBeLessThanOrEqual(Math.ceil((0.7 * LIFE_MS) / 1000) + 1);
      // the same share every time: the period is the queue's own
      expect(new Set(gaps).size).toBe(1);
    }
  });

  it("spreads the writes of queues made together, in the first period and an hour later", () => {
    // all at one share, 200 would fall in one window; spread over 0.3–0.7 of 650 s, ~8 do
    expect(busiestTenSeconds(times.map((w) => w[0]!))).toBeLessThanOrEqual(25);
    expect(busiestTenSeconds(times.flatMap((w) => w.filter((t) => t > 3000)))).toBeLessThanOrEqual(25);
  });

  it("writes a queue whose expiry is within the wait and the margin at every visit", () => {
    const q = { queueId: queues[0]!, lifespanSecs: 1 };
    expect(isVisitWritten(q, WAIT_MS + EXPIRY_MARGIN_MS - 1, WAIT_MS)).toBe(true);
  });
});
