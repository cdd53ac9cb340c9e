/** One socket write per event-loop turn (nats-flush.ts), on a real nats-server: messages arrive whole and in order. */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import "../src/nats-flush";
import { startTestNats } from "../../../test/support/nats";

let nats: Awaited<ReturnType<typeof startTestNats>>;
let nc: NatsConnection;
beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
});
afterAll(async () => {
  await nc.drain();
  await nats.stop();
});

/** Counts the connection's socket writes while `work` runs. */
async function countWrites(work: () => Promise<void>): Promise<number> {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol
    .transport;
  const send = transport.send;
  let writes = 0;
  transport.send = function (frame) {
    writes++;
    send.call(this, frame);
  };
  try {
    await work();
  } finally {
    transport.send = send;
  }
  return writes;
}

it("sends what ten timers of one turn publish in one write, every message in order", async () => {
  const received: string[] = [];
  const sub = nc.subscribe("flushtest.a", { max: 10, callback: (_err, msg) => void received.push(msg.string()) });
  await nc.flush();
  const writes = await countWrites(async () => {
    // each timer callback is a macrotask of its own, with a microtask checkpoint after it
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 10; i++) setTimeout(() => nc.publish("flushtest.a", `m${i}`), 0);
      setTimeout(resolve, 0);
    });
    await new Promise((r) => setImmediate(r));
  });
  expect(writes).toBe(1);
  await sub.closed;
  expect(received).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
});

it("answers requests made in one turn, each with its own reply", async () => {
  const echo = nc.subscribe("flushtest.echo", { callback: (_err, msg) => void msg.respond(msg.data) });
  await nc.flush();
  const replies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => nc.request("flushtest.echo", `r${i}`, { timeout: 2000 })),
  );
  expect(replies.map((m) => m.string())).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`));
  echo.unsubscribe();
});
