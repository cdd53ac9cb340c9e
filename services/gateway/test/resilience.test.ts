import mongoose from "mongoose";
import {
  BusClient,
  EventPublisher,
  ZulipError,
  createLogger,
  databaseName,
  identity,
  identityEvents,
} from "@teamchat/shared";
import { ApiClient, basicAuth, ok } from "@teamchat/shared/src/testing/api";
import { whenPolling } from "../../../test/support/events";
import { startSystem, type TestSystem } from "../../../test/support/system";

/** A second account in the test organization, created over the bus as the management CLI does. */
async function newUser(sys: TestSystem, email: string) {
  const bus = new BusClient(sys.nc);
  const made = await bus.request(
    identity.createOwner,
    { email, full_name: email, password: null },
    { realm: sys.realm, actor: null, requestId: "test" },
  );
  return { email, apiKey: made.api_key, userId: made.user_id };
}

/** The counts start afresh each 60 s window: waits for the next one when near the end, so that a test's requests fall in one. */
async function earlyInWindow(): Promise<void> {
  const secondsIntoWindow = (Date.now() / 1000) % 60;
  if (secondsIntoWindow > 50) await new Promise((r) => setTimeout(r, (60 - secondsIntoWindow) * 1000 + 100));
}

describe("rate limit shared by two gateway instances", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "5", RATE_LIMIT_WINDOW_SECONDS: "60" } });
  });
  afterAll(() => sys?.stop());

  it("counts requests on both gateways against one limit, then answers 429 with Retry-After", async () => {
    const second = await sys.startGateway();
    const clients = [sys.api(sys.owner), new ApiClient(second, sys.owner)];
    await earlyInWindow();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await clients[i % 2]!.get("/users/me");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    for (const client of clients) {
      const res = await client.get("/users/me");
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        result: "error",
        code: "RATE_LIMIT_HIT",
        msg: "API usage exceeded rate limit",
        "retry-after": expect.any(Number),
      });
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it("a concurrent burst gets exactly the limit, the rest 429, never an error", async () => {
    const burst = await newUser(sys, "burst@example.com");
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        sys
          .api(burst)
          .get("/users/me")
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it("GET /events is counted in each gateway's memory, apart from the shared count (as Zulip's Tornado counts its own)", async () => {
    const poller = await newUser(sys, "poller@example.com");
    const [here, there] = [sys.api(poller), new ApiClient(await sys.startGateway(), poller)];
    await earlyInWindow();
    const { queue_id } = ok(await here.post("/register", { event_types: ["heartbeat"] }));
    const poll = (client: ApiClient) => client.get("/events", { queue_id, last_event_id: -1, dont_block: true });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await poll(here);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const refused = await poll(here);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ result: "error", code: "RATE_LIMIT_HIT" });
    // the shared count has only the registration
    const me = await here.get("/users/me");
    expect(me.status).toBe(200);
    expect(me.headers.get("x-ratelimit-remaining")).toBe("3");
    // the other gateway counts its own
    const elsewhere = await poll(there);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("counts anonymous clients behind a trusted proxy by the address it forwarded; elsewhere X-Forwarded-For is ignored", async () => {
    const behindProxy = await sys.startGateway({ TRUSTED_PROXIES: "127.0.0.1" });
    await earlyInWindow();
    const remainingOf = async (base: string, forwardedFor: string) => {
      const res = await fetch(`${base}/api/v1/server_settings`, { headers: { "x-forwarded-for": forwardedFor } });
      expect(res.status).toBe(200);
      return res.headers.get("x-ratelimit-remaining");
    };
    expect(await remainingOf(behindProxy, "203.0.113.7")).toBe("4");
    expect(await remainingOf(behindProxy, "203.0.113.7")).toBe("3");
    expect(await remainingOf(behindProxy, "198.51.100.2")).toBe("4");
    // a gateway that trusts no proxy counts its peer (127.0.0.1), whatever the header says
    const direct = [await remainingOf(sys.baseUrl, "192.0.2.1"), await remainingOf(sys.baseUrl, "192.0.2.2")];
    expect(Number(direct[1])).toBe(Number(direct[0]) - 1);
  });

  it("limits each user separately", async () => {
    const other = await newUser(sys, "other@example.com");
    const res = await sys.api(other).get("/users/me");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("4");
  });
});

describe("services down or slow", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem({ env: { BUS_TIMEOUT_MS: "700", AUTH_CACHE_SECONDS: "0" } });
  });
  afterAll(() => sys?.stop());

  it("no instance of a service → 503 after the gateway asked again for 2 s; a new instance → served again", async () => {
    await sys.stopService("identity");
    const started = Date.now();
    const res = await sys.api(sys.owner).get("/users/me");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ result: "error", code: "SERVICE_UNAVAILABLE", msg: "Service unavailable: identity" });
    // the credentials' check is a read: asked again after 0.2, 0.6 and 1.2 s, as the operation itself would be
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    const health = await fetch(`${sys.baseUrl}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { services: Record<string, string> }).services.identity).toMatch(/unavailable/);
    await sys.startService("identity");
    expect(ok(await sys.api(sys.owner).get("/users/me")).user_id).toBe(sys.owner.userId);
  });

  it("an instance that does not answer in time → 504", async () => {
    await sys.stopService("identity");
    // A stuck instance: takes the request, never replies.
    const stuck = sys.nc.subscribe(identity.authenticate.subject, { queue: "identity", callback: () => undefined });
    await sys.nc.flush(); // the server knows the subscriber before the request arrives
    try {
      const res = await sys.api(sys.owner).get("/users/me");
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ result: "error", code: "GATEWAY_TIMEOUT", msg: "Service timed out: identity" });
    } finally {
      stuck.unsubscribe();
      await sys.startService("identity");
    }
  });

  it("a service too busy to serve in time → its 503 at once, with Retry-After, not asked again", async () => {
    await sys.stopService("identity");
    // A busy instance: refuses at once, saying when to come back (Semaphore.runInTime).
    const busyMessage = "The server is busy loading other users' data; try again in 3 s.";
    const busy = new ZulipError("SERVICE_UNAVAILABLE", busyMessage, 503, { "retry-after": 3 });
    let asked = 0;
    const sub = sys.nc.subscribe(identity.authenticate.subject, {
      queue: "identity",
      callback: (_err, msg) => {
        asked++;
        msg.respond(JSON.stringify({ ok: false, error: busy.toWire() }));
      },
    });
    await sys.nc.flush();
    try {
      const started = Date.now();
      const res = await sys.api(sys.owner).get("/users/me");
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("3");
      expect(res.body).toEqual({ result: "error", code: "SERVICE_UNAVAILABLE", msg: busyMessage, "retry-after": 3 });
      expect(asked).toBe(1);
    } finally {
      sub.unsubscribe();
      await sys.startService("identity");
    }
  });
});

describe("accounts, cache and logs", () => {
  let sys: TestSystem;
  const logs: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    sys = await startSystem({ env: { LOG_LEVEL: "debug", AUTH_CACHE_SECONDS: "300" }, logs });
  });
  afterAll(() => sys?.stop());

  it("a deactivated user gets 401 USER_DEACTIVATED once identity announces the change", async () => {
    const user = await newUser(sys, "leaving@example.com");
    ok(await sys.api(user).get("/users/me")); // now cached by the gateway
    const conn = await mongoose
      .createConnection(sys.config.MONGO_URL, { dbName: databaseName(sys.config, "identity") })
      .asPromise();
    try {
      await conn.collection("users").updateOne({ userId: user.userId }, { $set: { isActive: false } });
    } finally {
      await conn.close();
    }
    // what identity publishes after a deactivation: its own instances reload the user, gateways drop the key
    const identityPublisher = new EventPublisher(sys.nc, "identity");
    identityPublisher.publish(identityEvents.usersChanged, { realmId: sys.realm.id });
    identityPublisher.publish(identityEvents.authInvalidated, { userId: user.userId });
    await sys.nc.flush();
    // NATS delivers to the gateway's connection in order: by the time the reply to this request
    // arrives there, the invalidation (published earlier) has been handled, whatever this request saw.
    await sys.api(user).get("/users/me");
    const res = await sys.api(user).get("/users/me");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
    expect(res.body).toEqual({ result: "error", code: "USER_DEACTIVATED", msg: "Account is deactivated" });
  });

  it("carries the request id from the HTTP request into the service's log lines", async () => {
    const requestId = "req-test-1234";
    const res = await fetch(`${sys.baseUrl}/api/v1/users/me`, {
      headers: {
        "x-request-id": requestId,
        authorization: basicAuth(sys.owner),
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe(requestId);
    const lines = logs.filter((l) => l.requestId === requestId);
    const handled = lines.filter((l) => l.service === "identity" && l.msg === "handled").map((l) => l.subject);
    // authentication (cache miss) and the operation itself, both under the client's id
    expect(handled.sort()).toEqual([identity.authenticate.subject, identity.getOwnUser.subject].sort());
  });

  it("never logs API keys or passwords", async () => {
    await sys.api(null).post("/fetch_api_key", { username: sys.owner.email, password: sys.owner.password });
    await sys.api({ email: sys.owner.email, apiKey: "b".repeat(32) }).get("/users/me");
    const text = JSON.stringify(logs);
    expect(text).not.toContain(sys.owner.apiKey);
    expect(text).not.toContain(sys.owner.password);
  });

  it("the logger redacts credential fields wherever they appear", () => {
    const out: string[] = [];
    const log = createLogger("t", "info", { write: (l: string) => void out.push(l) });
    log.info(
      { password: "p1", api_key: "k1", req: { headers: { authorization: "Basic x" } }, params: { new_password: "p2" } },
      "x",
    );
    expect(out.join("")).not.toMatch(/p1|k1|Basic x|p2/);
    expect(out.join("")).toContain("[redacted]");
  });
});

/**
 * A gateway stopped (SIGTERM, a rolling restart) does not wait for its parked
 * long-polls, up to a heartbeat interval each: it answers them at once with no
 * events, and its clients poll again through another gateway.
 */
describe("a gateway that stops", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem();
  });
  afterAll(() => sys?.stop());

  it("answers its parked GET /events with no events, and the client continues through another gateway without a gap", async () => {
    const stopping = await sys.startGateway();
    const staying = sys.api(sys.owner);
    const { queue_id, last_event_id } = ok(await staying.post("/register", { event_types: ["message"] }));
    const parked = await whenPolling(sys.nc, queue_id as string, () =>
      new ApiClient(stopping, sys.owner).get("/events", { queue_id, last_event_id }),
    );
    // resolves before the heartbeat (50 s) would have answered the poll
    await sys.stopGateway(stopping);
    const released = await parked.reply;
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ result: "success", msg: "", events: [], queue_id });
    await expect(fetch(`${stopping}/api/v1/server_settings`)).rejects.toThrow("fetch failed");

    const sent = ok(
      await staying.post("/messages", { type: "private", to: JSON.stringify([sys.owner.userId]), content: "after" }),
    );
    // the same last_event_id: nothing was acknowledged by the empty answer
    const next = ok(await staying.get("/events", { queue_id, last_event_id }));
    expect(next.events).toEqual([
      expect.objectContaining({
        type: "message",
        message: expect.objectContaining({ id: sent.id, content: "after" }),
      }),
    ]);
  });
});
