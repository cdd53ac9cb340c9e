/**
 * BusServer under bursts, on a real nats-server: more requests than slots must
 * all be answered, slots go to waiters in arrival order, and drain() returns.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { z } from "zod";
import { BusClient, BusServer, createLogger, defineContract } from "@teamchat/shared";
import { startTestNats } from "../../../test/support/nats";

const slow = defineContract({
  subject: "bustest.slow.run",
  params: z.object({ n: z.number().int() }),
  reply: z.object({ n: z.number().int() }),
});

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

const ctx = { realm: null, actor: null, requestId: "bus-test" };

async function burst(concurrency: number) {
  const serverNc = await connect({ servers: nats.url });
  const server = new BusServer({
    nc: serverNc,
    service: "bustest",
    logger: createLogger("bustest", "silent"),
    concurrency,
  });
  const started: number[] = [];
  let running = 0;
  let peak = 0;
  server.handle(slow, async ({ n }) => {
    started.push(n);
    peak = Math.max(peak, ++running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    return { n };
  });
  await serverNc.flush();
  const client = new BusClient(nc, { timeoutMs: 20_000 });
  const total = 5 * concurrency;
  // Requests leave one connection in order, so they reach the server in this order.
  const replies = Array.from({ length: total }, (_, n) => client.request(slow, { n }, ctx));
  const answered = await Promise.all(replies);
  await server.drain();
  await serverNc.close();
  return { answered: answered.map((r) => r.n), started, peak, total };
}

it.each([4, 1])("answers a burst of 5 x the concurrency limit (%i) in arrival order, then drains", async (limit) => {
  const { answered, started, peak, total } = await burst(limit);
  const inOrder = Array.from({ length: total }, (_, n) => n);
  expect(answered).toEqual(inOrder);
  expect(started).toEqual(inOrder);
  expect(peak).toBe(limit);
});

it("drain() waits for requests still waiting for a slot, and the server takes no new ones", async () => {
  const serverNc = await connect({ servers: nats.url });
  const server = new BusServer({
    nc: serverNc,
    service: "bustest",
    logger: createLogger("bustest", "silent"),
    concurrency: 2,
  });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  server.handle(slow, async ({ n }) => {
    await gate;
    return { n };
  });
  await serverNc.flush();
  const client = new BusClient(nc, { timeoutMs: 20_000 });
  const replies = Array.from({ length: 10 }, (_, n) => client.request(slow, { n }, ctx));
  await nc.flush();
  // Wait until every request reached the server (two running, eight waiting) before draining.
  await serverNc.flush();
  const drained = server.drain();
  release();
  await drained;
  expect((await Promise.all(replies)).map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await expect(client.request(slow, { n: 10 }, ctx)).rejects.toMatchObject({
    code: "SERVICE_UNAVAILABLE",
    status: 503,
  });
  await serverNc.close();
});

it("does not start requests whose caller gave up while they waited for a slot", async () => {
  const serverNc = await connect({ servers: nats.url });
  const server = new BusServer({
    nc: serverNc,
    service: "bustest",
    logger: createLogger("bustest", "silent"),
    concurrency: 1,
  });
  const started: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  server.handle(slow, async ({ n }) => {
    started.push(n);
    await gate;
    return { n };
  });
  await serverNc.flush();
  const client = new BusClient(nc, { timeoutMs: 300 });
  // The first takes the only slot and blocks; the others wait behind it until their callers time out.
  const outcomes = [0, 1, 2].map((n) =>
    client.request(slow, { n }, ctx).then(
      () => "answered",
      (e: { code: string }) => e.code,
    ),
  );
  expect(await Promise.all(outcomes)).toEqual(["GATEWAY_TIMEOUT", "GATEWAY_TIMEOUT", "GATEWAY_TIMEOUT"]);
  release();
  await server.drain();
  expect(started).toEqual([0]);
  await serverNc.close();
});

it("checks replies against the contract on the caller's side", async () => {
  const serverNc = await connect({ servers: nats.url });
  // A server that answers without checking, as in production.
  const server = new BusServer({ nc: serverNc, service: "bustest", logger: createLogger("bustest", "silent") });
  server.handle(slow, () => ({ n: "not a number" }) as unknown as { n: number });
  await serverNc.flush();
  await expect(new BusClient(nc).request(slow, { n: 1 }, ctx)).rejects.toThrow(/reply breaks its contract/);
  await expect(new BusClient(nc, { checkReplies: false }).request(slow, { n: 1 }, ctx)).resolves.toEqual({
    n: "not a number",
  });
  await server.drain();
  await serverNc.close();
});

it("refuses a malformed envelope with an internal error instead of guessing", async () => {
  const serverNc = await connect({ servers: nats.url });
  const server = new BusServer({ nc: serverNc, service: "bustest", logger: createLogger("bustest", "silent") });
  server.handle(slow, ({ n }) => ({ n }));
  await serverNc.flush();
  const msg = await nc.request(slow.subject, JSON.stringify({ actor: 5, params: { n: 1 } }), { timeout: 5_000 });
  expect(msg.json()).toEqual({
    ok: false,
    error: { code: "INTERNAL_SERVER_ERROR", msg: "Internal server error", status: 500, extra: {} },
  });
  await server.drain();
  await serverNc.close();
});
