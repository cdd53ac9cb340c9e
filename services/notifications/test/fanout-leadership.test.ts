/**
 * One notifications instance at a time runs the event fan-out (so a queue
 * gets its events in order): a second instance waits, takes over once the
 * first is gone without a word (its lease lapses), and at once when the first
 * stops cleanly.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { createLogger } from "@teamchat/shared";
import { leadFanout } from "../src/fanout-leadership";
import { startTestNats } from "../../../test/support/nats";

const log = createLogger("notifications", "silent");
let nats: Awaited<ReturnType<typeof startTestNats>>;
const connections: NatsConnection[] = [];
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
  await nats.stop();
});

/** An instance's fan-out as the leadership sees it: how often it was started and stopped. */
async function instance() {
  const nc = await connect({ servers: nats.url });
  connections.push(nc);
  const fanout = { starts: 0, stops: 0 };
  const leadership = await leadFanout(nc, 1, log, async () => {
    fanout.starts++;
    return { stop: async () => void fanout.stops++ };
  });
  return { nc, fanout, leadership };
}

const waitFor = async (condition: () => boolean) => {
  for (const giveUpAt = Date.now() + 15_000; !condition(); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > giveUpAt) throw new Error("the fan-out did not change hands within 15 s");
  }
};

it("runs on one instance; another takes over when it is gone, and at once when it stops cleanly", async () => {
  const first = await instance();
  const second = await instance();
  expect(first.fanout).toEqual({ starts: 1, stops: 0 });
  expect(second.fanout).toEqual({ starts: 0, stops: 0 });

  // killed: its connection gone without releasing the lease, which lapses
  await first.nc.close();
  await waitFor(() => second.fanout.starts === 1);
  expect(second.fanout).toEqual({ starts: 1, stops: 0 });

  const third = await instance();
  expect(third.fanout).toEqual({ starts: 0, stops: 0 });
  await second.leadership.stop();
  expect(second.fanout).toEqual({ starts: 1, stops: 1 });
  await waitFor(() => third.fanout.starts === 1);
  await Promise.all([first, third].map((i) => i.leadership.stop()));
});
