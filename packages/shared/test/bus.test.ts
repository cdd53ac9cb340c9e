/**
 * BusServer and BusClient on a real nats-server: more requests than slots must
 * all be answered, slots go to waiters in arrival order, drain() returns, work
 * whose caller gave up is not started, replies are checked both ways, and a
 * request made while the caller's connection is down waits for it (2 s), and
 * just after it is back, for services to subscribe again.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { z } from "zod";
import {
  BusClient,
  BusServer,
  RawJson,
  createLogger,
  defineContract,
  healthContract,
  type Contract,
  type Handler,
} from "@teamchat/shared";
import { addDbTime, awaitWithRequest } from "../src/request-scope";
import { CuttableProxy } from "../../../test/support/cuttable-proxy";
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

/** A BusServer for `contract` on its own connection; `stop()` drains it and closes the connection. */
async function serveOn<C extends Contract>(
  contract: C,
  handler: Handler<C>,
  opts: { concurrency?: number; validateReplies?: boolean } = {},
) {
  const serverNc = await connect({ servers: nats.url });
  const server = await BusServer.start({
    nc: serverNc,
    service: "bustest",
    logger: createLogger("bustest", "silent"),
    ...opts,
  });
  server.handle(contract, handler);
  await serverNc.flush();
  return {
    server,
    serverNc,
    stop: async () => {
      await server.drain();
      await serverNc.close();
    },
  };
}

/** The same for `slow`. */
const serve = (handler: Handler<typeof slow>, opts: Parameters<typeof serveOn>[2] = {}) => serveOn(slow, handler, opts);

/** A promise the test resolves when it wants blocked handlers to go on. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

it.each([4, 1])("answers a burst of 5 x the concurrency limit (%i) in arrival order, then drains", async (limit) => {
  const started: number[] = [];
  let running = 0;
  let peak = 0;
  const { stop } = await serve(
    async ({ n }) => {
      started.push(n);
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return { n };
    },
    { concurrency: limit },
  );
  const client = new BusClient(nc, { timeoutMs: 20_000 });
  const total = 5 * limit;
  // Requests leave one connection in order, so they reach the server in this order.
  const answered = await Promise.all(Array.from({ length: total }, (_, n) => client.request(slow, { n }, ctx)));
  await stop();
  const inOrder = Array.from({ length: total }, (_, n) => n);
  expect(answered.map((r) => r.n)).toEqual(inOrder);
  expect(started).toEqual(inOrder);
  expect(peak).toBe(limit);
});

it("drain() waits for requests still waiting for a slot, and the server takes no new ones", async () => {
  const blocked = gate();
  const { server, stop } = await serve(
    async ({ n }) => {
      await blocked.opened;
      return { n };
    },
    { concurrency: 2 },
  );
  const client = new BusClient(nc, { timeoutMs: 20_000 });
  const replies = Array.from({ length: 10 }, (_, n) => client.request(slow, { n }, ctx));
  // Every request has reached the server (two running, eight waiting) before draining.
  await nc.flush();
  const drained = server.drain();
  blocked.open();
  await drained;
  expect((await Promise.all(replies)).map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await expect(client.request(slow, { n: 10 }, ctx)).rejects.toMatchObject({
    code: "SERVICE_UNAVAILABLE",
    status: 503,
  });
  await stop();
});

it("does not start requests whose caller gave up while they waited for a slot", async () => {
  const started: number[] = [];
  const blocked = gate();
  const { stop } = await serve(
    async ({ n }) => {
      started.push(n);
      await blocked.opened;
      return { n };
    },
    { concurrency: 1 },
  );
  const client = new BusClient(nc, { timeoutMs: 300 });
  // The first takes the only slot and blocks; the others wait behind it until their callers time out.
  const outcomes = [0, 1, 2].map((n) =>
    client.request(slow, { n }, ctx).then(
      () => "answered",
      (e: { code: string }) => e.code,
    ),
  );
  expect(await Promise.all(outcomes)).toEqual(["GATEWAY_TIMEOUT", "GATEWAY_TIMEOUT", "GATEWAY_TIMEOUT"]);
  blocked.open();
  await stop();
  expect(started).toEqual([0]);
});

it("checks replies against the contract on the caller's side", async () => {
  // A server that answers without checking, as in production.
  const { stop } = await serve(() => ({ n: "not a number" }) as unknown as { n: number }, { validateReplies: false });
  await expect(new BusClient(nc).request(slow, { n: 1 }, ctx)).rejects.toThrow(/reply breaks its contract/);
  await expect(new BusClient(nc, { checkReplies: false }).request(slow, { n: 1 }, ctx)).resolves.toEqual({
    n: "not a number",
  });
  await stop();
});

it("refuses a malformed envelope with an internal error instead of guessing", async () => {
  const { stop } = await serve(({ n }) => ({ n }));
  const msg = await nc.request(slow.subject, JSON.stringify({ actor: 5, params: { n: 1 } }), { timeout: 5_000 });
  expect(msg.json()).toEqual({
    ok: false,
    error: { code: "INTERNAL_SERVER_ERROR", msg: "Internal server error", status: 500, extra: {} },
  });
  await stop();
});

it("passes a serialized reply on as it is, and checks it like any other", async () => {
  const { stop } = await serve(({ n }) => new RawJson(`{"n":${n}}`));
  const reply = await new BusClient(nc).requestJson(slow, { n: 7 }, ctx);
  expect(reply.json).toBe('{"n":7}');
  expect(await new BusClient(nc).request(slow, { n: 8 }, ctx)).toEqual({ n: 8 });
  await stop();
  const bad = await serve(() => new RawJson('{"n":"seven"}'), { validateReplies: false });
  await expect(new BusClient(nc).requestJson(slow, { n: 1 }, ctx)).rejects.toThrow(/reply breaks its contract/);
  await bad.stop();
});

it("merges objects and serialized replies into one object, skipping empty ones", () => {
  const merged = RawJson.merge([
    { result: "success", msg: "" },
    new RawJson("{}"),
    new RawJson('{"a":[1,2],"b":{"c":null}}'),
    {},
    new RawJson('{"name":"Zoë 🎉"}'),
  ]);
  expect(merged.json).toBe('{"result":"success","msg":"","a":[1,2],"b":{"c":null},"name":"Zoë 🎉"}');
  expect(RawJson.merge([{}, new RawJson("{}")]).json).toBe("{}");
});

/** Serves `handler` for `slow` at the warn level, asks it once; the "slow request" line it logged. */
async function slowRequestLogged(handler: Handler<typeof slow>): Promise<Record<string, unknown> | undefined> {
  const lines: Array<Record<string, unknown>> = [];
  const serverNc = await connect({ servers: nats.url });
  const server = await BusServer.start({
    nc: serverNc,
    service: "bustest",
    logger: createLogger("bustest", "warn", { write: (l: string) => void lines.push(JSON.parse(l)) }),
  });
  server.handle(slow, handler);
  await serverNc.flush();
  try {
    expect(await new BusClient(nc).request(slow, { n: 1 }, ctx)).toEqual({ n: 1 });
    return lines.find((l) => l.msg === "slow request");
  } finally {
    await server.drain();
    await serverNc.close();
  }
}

it("logs a slow request with how long it waited for its events to be stored", async () => {
  // an event whose store takes 1.1 s, as a stalled stream would: the handler itself returns at once
  const logged = await slowRequestLogged(async ({ n }) => {
    awaitWithRequest(new Promise((r) => setTimeout(r, 1_100)));
    return { n };
  });
  expect(logged).toMatchObject({ subject: slow.subject, ok: true });
  expect(logged!.acksMs).toBeGreaterThanOrEqual(1_000);
  expect(logged!.acksMs).toBeLessThanOrEqual(logged!.ms as number);
});

it("logs a slow request with the database time it awaited and its longest command", async () => {
  // two commands as the database driver reports them (db.ts), then the handler goes on past the slow mark
  const logged = await slowRequestLogged(async ({ n }) => {
    addDbTime("find", "messages", 700.04);
    addDbTime("update", "read_states", 400);
    await new Promise((r) => setTimeout(r, 1_100));
    return { n };
  });
  expect(logged).toMatchObject({
    subject: slow.subject,
    db: { ms: 1100, commands: 2, slowest: { command: "find", collection: "messages", ms: 700 } },
  });
});

it("answers the health ping only once announced ready, after the service's handlers are subscribed", async () => {
  const { server, serverNc, stop } = await serve(async ({ n }) => ({ n }));
  try {
    const client = new BusClient(nc, { timeoutMs: 1_000 });
    const ping = () => client.request(healthContract("bustest"), {}, ctx);
    await expect(ping()).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
    server.announceReady();
    // the server knows the health subscription before the ping arrives
    await serverNc.flush();
    await expect(ping()).resolves.toEqual({ service: "bustest" });
  } finally {
    await stop();
  }
});

describe("a caller whose connection to NATS is down", () => {
  let proxy: CuttableProxy;
  let callerNc: NatsConnection;
  beforeEach(async () => {
    proxy = new CuttableProxy(new URL(nats.url));
    callerNc = await connect({ servers: await proxy.listen(), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  });
  /** servers started by the test, stopped after it whatever happened (a leftover would answer the next test) */
  const servers: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    await callerNc.close();
    proxy.close();
  });
  /** Resolves when the caller's connection reports `type`. */
  const status = async (type: "disconnect" | "reconnect") => {
    for await (const s of callerNc.status()) if (s.type === type) return;
  };
  /** A client made while connected (as a service's is, at start), then cut off. */
  const disconnected = async () => {
    const client = new BusClient(callerNc);
    const down = status("disconnect");
    proxy.cut();
    await down;
    return client;
  };
  /** A server for `slow` that notes each request it runs. */
  const serveNoting = async () => {
    const seen: number[] = [];
    servers.push(
      await serve(async ({ n }) => {
        seen.push(n);
        return { n };
      }),
    );
    return seen;
  };

  it("waits for it to come back and is answered, each request once", async () => {
    const seen = await serveNoting();
    const client = await disconnected();
    const answers = Promise.all([1, 2, 3].map((n) => client.request(slow, { n }, ctx)));
    setTimeout(() => proxy.resume(), 500);
    expect(await answers).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(seen.sort()).toEqual([1, 2, 3]);
  });

  it("once it is back, waits up to 2 s for a service not subscribed again yet", async () => {
    const client = await disconnected();
    const back = status("reconnect");
    proxy.resume();
    await back;
    const answer = client.request(slow, { n: 5 }, ctx);
    await new Promise((r) => setTimeout(r, 500));
    servers.push(await serve(async ({ n }) => ({ n })));
    expect(await answer).toEqual({ n: 5 });
  });

  it("answers 503 when it stays down for 2 s, and the request never runs", async () => {
    const seen = await serveNoting();
    const client = await disconnected();
    const started = Date.now();
    await expect(client.request(slow, { n: 1 }, ctx)).rejects.toMatchObject({
      status: 503,
      message: "Service unavailable: bustest (connection to NATS lost)",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    proxy.resume();
    expect(await client.request(slow, { n: 2 }, ctx)).toEqual({ n: 2 });
    expect(seen).toEqual([2]);
  });
});

describe("a keepAlive request", () => {
  const kept = defineContract({
    subject: "bustest.kept.run",
    params: z.object({ n: z.number().int() }),
    reply: z.object({ n: z.number().int() }),
    keepAlive: { everyMs: 100 },
  });

  const serveKept = (handler: Handler<typeof kept>) => serveOn(kept, handler, { concurrency: 1 });

  it("is answered however long it waits for a slot and runs, while its instance says it works on it", async () => {
    const { stop } = await serveKept(async ({ n }) => {
      await new Promise((r) => setTimeout(r, 400)); // four keep-alive intervals
      return { n };
    });
    try {
      const client = new BusClient(nc, { timeoutMs: 5_000 });
      // the second waits 400 ms for the only slot: longer than the 300 ms of silence a caller allows
      const replies = await Promise.all([1, 2].map((n) => client.request(kept, { n }, ctx)));
      expect(replies).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      await stop();
    }
  });

  it("is answered 503 within three intervals of silence when its instance dies, not at the timeout", async () => {
    const running = gate();
    // released after the test only: its instance is killed meanwhile (a handler left running would keep its
    // keep-alive timer, and Jest's worker, alive)
    const released = gate();
    const { serverNc } = await serveKept(async ({ n }) => {
      running.open();
      await released.opened;
      return { n };
    });
    try {
      const client = new BusClient(nc, { timeoutMs: 10_000 });
      const reply = client.request(kept, { n: 1 }, ctx);
      await running.opened;
      const killedAt = Date.now();
      await serverNc.close(); // as SIGKILL: no reply, no more keep-alives
      await expect(reply).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503 });
      expect(Date.now() - killedAt).toBeLessThan(2_000);
    } finally {
      released.open();
    }
  });
});
