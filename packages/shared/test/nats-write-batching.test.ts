/**
 * The commands a connection sends during one turn of the event loop go out in
 * one socket write, in order; flush() still writes at once, and close() writes
 * what waits before the socket goes.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { ProtocolHandler } from "@nats-io/nats-core/internal";
import "../src/nats-write-batching";
import { startTestNats } from "../../../test/support/nats";

let nats: Awaited<ReturnType<typeof startTestNats>>;
let sender: NatsConnection;
let receiver: NatsConnection;
beforeAll(async () => {
  nats = await startTestNats();
  sender = await connect({ servers: nats.url });
  receiver = await connect({ servers: nats.url });
});
afterAll(async () => {
  await sender.close();
  await receiver.close();
  await nats.stop();
});

/** Counts the sender's socket writes until stopped. */
function watchWrites(): { writes: () => number; stop: () => void } {
  const { transport } = (sender as unknown as { protocol: ProtocolHandler }).protocol;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame) => {
    writes++;
    send(frame);
  };
  return { writes: () => writes, stop: () => void (transport.send = send) };
}

it("writes the publishes of separate tasks within one turn together, in order", async () => {
  const received: string[] = [];
  const sub = receiver.subscribe("batching.test", { callback: (_err, msg) => void received.push(msg.string()) });
  await receiver.flush();
  const watch = watchWrites();
  // each publish in a task of its own, as each HTTP request's is: nats.js alone wrote after each one
  for (let i = 0; i < 10; i++) {
    sender.publish("batching.test", `m${i}`);
    await Promise.resolve();
  }
  expect(watch.writes()).toBe(0);
  await new Promise((resolve) => setImmediate(resolve));
  watch.stop();
  expect(watch.writes()).toBe(1);
  await sender.flush();
  await receiver.flush();
  expect(received).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  sub.unsubscribe();
});

it("writes at once on flush()", async () => {
  const watch = watchWrites();
  sender.publish("batching.test", "before the flush");
  const flushed = sender.flush();
  expect(watch.writes()).toBe(1);
  await flushed;
  watch.stop();
  expect(watch.writes()).toBe(1);
});

it("writes what waits before the connection closes", async () => {
  const closing = await connect({ servers: nats.url });
  const received: string[] = [];
  const sub = receiver.subscribe("batching.close", { callback: (_err, msg) => void received.push(msg.string()) });
  await receiver.flush();
  closing.publish("batching.close", "last words");
  await closing.close();
  await receiver.flush();
  expect(received).toEqual(["last words"]);
  sub.unsubscribe();
});
