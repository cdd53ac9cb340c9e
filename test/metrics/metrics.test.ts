/**
 * What an operator watches the system by, on a private system with every
 * process's metrics listener on a free port (METRICS_PORT=0): each process's
 * `/metrics` counts and times the HTTP calls and the bus operations behind
 * them with the right labels, `/health` reports each dependency with its
 * latency, and NATS service discovery (`$SRV`) answers for every process.
 */
import { Svcm } from "@nats-io/services";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  PROCESSES,
  ServiceMetrics,
  createLogger,
  identity,
  realmConfig,
  startMetricsListener,
  type ProcessName,
} from "@teamchat/shared";
import { mongo } from "mongoose";
import packageJson from "../../package.json";
import { ApiClient } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../support/call";
import type { TestUser } from "../support/organization";
import { startSystem, type TestSystem } from "../support/system";

/**
 * The rate limit of this system: low enough that one user reaches it in a few dozen calls, above what
 * the owner asks in the whole file (creating users among it) within a minute.
 */
const RATE_LIMIT = 40;

let sys: TestSystem;
let member: TestUser;
beforeAll(async () => {
  sys = await startSystem({ env: { METRICS_PORT: "0", RATE_LIMIT_REQUESTS: String(RATE_LIMIT) } });
  member = await sys.makeUser("member");
});
afterAll(() => sys?.stop());

const listenerOf = (name: ProcessName): string => {
  const [url] = sys.metricsUrls(name);
  if (!url) throw new Error(`${name} has no metrics listener`);
  return url;
};

/** One scrape of a process (of its first instance, else the one at `url`): each sample's value by its name and sorted labels (`sample()`). */
async function scrape(name: ProcessName, url = listenerOf(name)): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const [, metric, labels = "", value] = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
    const pairs = [...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k!, v!] as const);
    samples.set(sample(metric!, Object.fromEntries(pairs)), Number(value));
  }
  return samples;
}

/** Scrapes until `done` holds (work that ends after the reply, as a durable consumer's); fails after 10 s. */
async function scrapeUntil(name: ProcessName, done: (samples: Map<string, number>) => boolean) {
  for (const giveUpAt = Date.now() + 10_000; Date.now() < giveUpAt; await sleep(50)) {
    const samples = await scrape(name);
    if (done(samples)) return samples;
  }
  throw new Error(`${name}'s metrics never showed what was expected`);
}

/** A sample's key: its name and labels, sorted by name. */
const sample = (metric: string, labels: Record<string, string | number>) =>
  `${metric}{${Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}}`;

/** How much each of `keys` grew between two scrapes (absent counts as 0). */
const growth = (before: Map<string, number>, after: Map<string, number>, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, (after.get(k) ?? 0) - (before.get(k) ?? 0)]));

describe("/metrics", () => {
  it("every process serves its registry: the default process metrics, prefixed and labelled with its name", async () => {
    for (const name of PROCESSES) {
      const samples = await scrape(name);
      expect(samples.get(sample("teamchat_process_resident_memory_bytes", { service: name }))).toBeGreaterThan(0);
      expect(samples.get(sample("teamchat_nodejs_heap_size_used_bytes", { service: name }))).toBeGreaterThan(0);
      expect([...samples.keys()].every((k) => k.startsWith("teamchat_"))).toBe(true);
    }
  });

  it("the dashboard (dashboards/teamchat.json) asks only for metrics that some process declares", async () => {
    const declared = new Set<string>();
    for (const name of PROCESSES) {
      const text = await (await fetch(`${listenerOf(name)}/metrics`)).text();
      for (const [, metric, type] of text.matchAll(/^# TYPE (\w+) (\w+)$/gm)) {
        declared.add(metric!);
        if (type === "histogram") ["_bucket", "_count", "_sum"].forEach((suffix) => declared.add(metric + suffix));
      }
    }
    const dashboard = readFileSync(join(__dirname, "../../dashboards/teamchat.json"), "utf8");
    const asked = new Set([...dashboard.matchAll(/\bteamchat_\w+/g)].map(([m]) => m));
    expect(asked.size).toBeGreaterThan(20);
    expect([...asked].filter((m) => !declared.has(m))).toEqual([]);
  });

  it("counts and times each HTTP call at the gateway and its operation at the service, by route, operation and outcome", async () => {
    const api = sys.api(sys.owner);
    // the first call authenticates and fills the gateway's caches: measured from the next ones on
    expect((await api.get("/users/me")).status).toBe(200);
    const [gatewayBefore, identityBefore] = await Promise.all([scrape("gateway"), scrape("identity")]);
    for (let i = 0; i < 3; i++) expect((await api.get("/users/me")).status).toBe(200);
    await expectZulipError(api.get("/users/999999"), { status: 400, code: "BAD_REQUEST", msg: "No such user" });
    expect((await api.get("/no/such/route")).status).toBe(404);
    const [gatewayAfter, identityAfter] = await Promise.all([scrape("gateway"), scrape("identity")]);

    const http = (route: string, status: number) =>
      sample("teamchat_http_requests_total", { route, method: "GET", status, service: "gateway" });
    const httpCount = (route: string) =>
      sample("teamchat_http_request_duration_seconds_count", { route, method: "GET", service: "gateway" });
    expect(
      growth(gatewayBefore, gatewayAfter, [
        http("/api/v1/users/me", 200),
        http("/api/v1/users/:p0", 400),
        http("unmatched", 404),
        httpCount("/api/v1/users/me"),
      ]),
    ).toEqual({
      [http("/api/v1/users/me", 200)]: 3,
      [http("/api/v1/users/:p0", 400)]: 1,
      [http("unmatched", 404)]: 1,
      [httpCount("/api/v1/users/me")]: 3,
    });

    const bus = (operation: string, code: string) =>
      sample("teamchat_bus_requests_total", { operation, code, service: "identity" });
    const busCount = (operation: string) =>
      sample("teamchat_bus_request_duration_seconds_count", { operation, service: "identity" });
    const busFast = (operation: string) =>
      sample("teamchat_bus_request_duration_seconds_bucket", { le: 10, operation, service: "identity" });
    const ownUser = identity.getOwnUser.subject;
    const oneUser = identity.getUser.subject;
    expect(
      growth(identityBefore, identityAfter, [
        bus(ownUser, "OK"),
        bus(oneUser, "BAD_REQUEST"),
        busCount(ownUser),
        busCount(oneUser),
        busFast(ownUser),
      ]),
    ).toEqual({
      [bus(ownUser, "OK")]: 3,
      [bus(oneUser, "BAD_REQUEST")]: 1,
      [busCount(ownUser)]: 3,
      [busCount(oneUser)]: 1,
      [busFast(ownUser)]: 3,
    });
    expect(
      identityAfter.get(
        sample("teamchat_bus_request_duration_seconds_sum", { operation: ownUser, service: "identity" }),
      ),
    ).toBeGreaterThan(0);
  });

  it("a send: the event published and stored, its fan-out lag, the database commands and documents written, and the caches' look-ups", async () => {
    const [messagingBefore, notificationsBefore] = await Promise.all([scrape("messaging"), scrape("notifications")]);
    const sent = await sys
      .api(sys.owner)
      .post("/messages", { type: "private", to: JSON.stringify([member.userId]), content: "measured" });
    expect(sent.status).toBe(200);
    const messagingAfter = await scrape("messaging");

    const published = sample("teamchat_events_published_total", {
      event: "events.messaging.message",
      service: "messaging",
    });
    expect(growth(messagingBefore, messagingAfter, [published])).toEqual({ [published]: 1 });
    const inserts = sample("teamchat_db_command_duration_seconds_count", {
      command: "insert",
      collection: "messages",
      service: "messaging",
    });
    expect(growth(messagingBefore, messagingAfter, [inserts])[inserts]).toBeGreaterThanOrEqual(1);
    // a direct message between two users: the message and a usermessage row for each of them
    const db = (metric: string, collection: string) =>
      sample(metric, { command: "insert", collection, service: "messaging" });
    const rows = [
      db("teamchat_db_statements_total", "messages"),
      db("teamchat_db_documents_written_total", "messages"),
      db("teamchat_db_statements_total", "usermessages"),
      db("teamchat_db_documents_written_total", "usermessages"),
    ];
    expect(growth(messagingBefore, messagingAfter, rows)).toEqual(
      Object.fromEntries(rows.map((k, i) => [k, i < 2 ? 1 : 2])),
    );
    const lookups = [...messagingAfter.keys()].filter((k) => k.startsWith("teamchat_cache_lookups_total{"));
    expect(lookups.some((k) => k.includes('result="hit"'))).toBe(true);

    // the fan-out consumer handled the event, with its lag from the publish measured
    const consumer = { consumer: "notifications-fanout", service: "notifications" };
    const handled = sample("teamchat_events_consumed_total", { ...consumer, outcome: "ok" });
    const lagCount = sample("teamchat_event_consume_lag_seconds_count", consumer);
    const fannedOut = await scrapeUntil(
      "notifications",
      (now) => growth(notificationsBefore, now, [handled])[handled] > 0,
    );
    expect(growth(notificationsBefore, fannedOut, [handled, lagCount])).toEqual({ [handled]: 1, [lagCount]: 1 });
    expect(fannedOut.get(sample("teamchat_event_consumer_pending", consumer))).toBe(0);
  });
  it("an @all send writes the same documents whatever its channel's size: its members' mention flags, none", async () => {
    const owner = sys.api(sys.owner);
    const [sender, one, ...five] = await Promise.all(
      ["Walda", "Wanda", "Walt", "Wren", "Wade", "Wes", "Wynn"].map((n) => sys.makeUser(n)),
    );
    const later = await sys.makeUser("Wilma");
    // notified of nothing: the missed-message notices of an @all mention (one for each member away, as
    // Zulip notifies each) would be stored and read by their own consumers while later tests count
    await Promise.all(
      [sender!, one!, ...five].map((u) =>
        sys.call(
          identity.updateSettings,
          { enable_offline_email_notifications: false, enable_offline_push_notifications: false },
          u,
        ),
      ),
    );
    /** The documents messaging wrote, by collection, for an @all send into a new channel of `sender` and `members`. */
    const sendToAll = async (channel: string, members: TestUser[]) => {
      const subscribed = await owner.post("/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: channel }]),
        principals: JSON.stringify([sender!.userId, ...members.map((u) => u.userId)]),
      });
      expect(subscribed.status).toBe(200);
      const before = await scrape("messaging");
      const sent = await sys.api(sender!).post("/messages", {
        type: "stream",
        to: channel,
        topic: "news",
        content: "@**all** news",
      });
      expect(sent.status).toBe(200);
      const after = await scrape("messaging");
      const written = new Map<string, number>();
      for (const [key, value] of after) {
        const collection = /^teamchat_db_documents_written_total\{collection="(\w+)",/.exec(key)?.[1];
        if (!collection) continue;
        const grew = value - (before.get(key) ?? 0);
        if (grew) written.set(collection, (written.get(collection) ?? 0) + grew);
      }
      return { id: sent.body.id as number, written: Object.fromEntries([...written].sort()) };
    };
    const small = await sendToAll("all-of-two", [one!]);
    const large = await sendToAll("all-of-six", five);
    expect(large.written).toEqual(small.written);
    expect(large.written).not.toHaveProperty("usermessages");
    expect(large.written).toMatchObject({ messages: 1 });

    // every member has the mention, as Zulip's rows would: GET /messages, is:mentioned, register's unread mentions
    const flagsOf = async (user: TestUser) =>
      ((await sys.api(user).get(`/messages/${large.id}`)).body.message as { flags: string[] }).flags;
    const mentionedIds = async (user: TestUser) =>
      (
        (
          await sys.api(user).get("/messages", {
            anchor: "newest",
            num_before: 10,
            num_after: 0,
            narrow: JSON.stringify([{ operator: "is", operand: "mentioned" }]),
          })
        ).body.messages as Array<{ id: number }>
      ).map((m) => m.id);
    for (const member of five) {
      expect(await flagsOf(member)).toEqual(["stream_wildcard_mentioned", "wildcard_mentioned"]);
      expect(await mentionedIds(member)).toEqual([large.id]);
      const registered = await sys
        .api(member)
        .post("/register", { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) });
      expect(registered.body.unread_msgs.mentions).toEqual([large.id]);
    }
    // one who subscribes later sees it in the channel's history, never received: no mention of theirs
    const joined = await sys
      .api(later)
      .post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "all-of-six" }]) });
    expect(joined.status).toBe(200);
    expect(await flagsOf(later)).toEqual(["read", "historical"]);
    expect(await mentionedIds(later)).toEqual([]);
  });

  it("one update statement that writes several documents: the statement counted once, each document written", async () => {
    const owner = sys.api(sys.owner);
    const ids: number[] = [];
    for (const content of ["first", "second"]) {
      const sent = await owner.post("/messages", { type: "private", to: JSON.stringify([member.userId]), content });
      expect(sent.status).toBe(200);
      ids.push(sent.body.id as number);
    }
    const before = await scrape("messaging");
    const notificationsBefore = await scrape("notifications");
    const read = await sys
      .api(member)
      .post("/messages/flags", { messages: JSON.stringify(ids), op: "add", flag: "read" });
    expect(read.status).toBe(200);
    const update = (metric: string) =>
      sample(metric, { command: "update", collection: "usermessages", service: "messaging" });
    const keys = [update("teamchat_db_statements_total"), update("teamchat_db_documents_written_total")];
    expect(growth(before, await scrape("messaging"), keys)).toEqual({ [keys[0]!]: 1, [keys[1]!]: 2 });
    // without a push service nothing was pushed: the read withdraws nothing and looks nothing up
    const handled = sample("teamchat_events_consumed_total", {
      consumer: "notifications-push-removal-read",
      outcome: "ok",
      service: "notifications",
    });
    const lookups = sample("teamchat_db_command_duration_seconds_count", {
      command: "find",
      collection: "push_notified_messages",
      service: "notifications",
    });
    const after = await scrapeUntil("notifications", (now) => growth(notificationsBefore, now, [handled])[handled] > 0);
    expect(growth(notificationsBefore, after, [handled, lookups])).toEqual({ [handled]: 1, [lookups]: 0 });
  });

  it("a channel's pages after other organizations' sends: walked within its own ids", async () => {
    const owner = sys.api(sys.owner);
    expect(
      (await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "sparse" }]) })).status,
    ).toBe(200);
    for (const content of ["one", "two", "three"]) {
      const sent = await owner.post("/messages", { type: "stream", to: "sparse", topic: "t", content });
      expect(sent.status).toBe(200);
    }
    // ids come from one counter for every organization: others' sends put the channel far below the newest id
    const client = await mongo.MongoClient.connect(sys.config.MONGO_URL!);
    try {
      await client
        .db(`${sys.config.MONGO_DB_PREFIX}_messaging`)
        .collection<{ _id: string; seq: number }>("counters")
        .updateOne({ _id: "message" }, { $inc: { seq: 100_000 } });
    } finally {
      await client.close();
    }
    const before = await scrape("messaging");
    const page = await owner.get("/messages", {
      anchor: "newest",
      num_before: 100,
      num_after: 0,
      narrow: JSON.stringify([{ operator: "channel", operand: "sparse" }]),
    });
    expect(page.status).toBe(200);
    // after the notice of the channel's creation
    expect((page.body.messages as Array<{ content: string }>).slice(1).map((m) => m.content)).toEqual([
      "<p>one</p>",
      "<p>two</p>",
      "<p>three</p>",
    ]);
    const finds = sample("teamchat_db_command_duration_seconds_count", {
      command: "find",
      collection: "messages",
      service: "messaging",
    });
    // a range below its newest id and the rest of the channel below it (fewer than a page): walking down
    // from the deployment's newest id took five, widening through ids the channel has none of
    expect(growth(before, await scrape("messaging"), [finds])).toEqual({ [finds]: 2 });
    // deleting the topic walks the database (no page of it is in memory), also from the channel's newest id
    const streamId = (await owner.get("/get_stream_id", { stream: "sparse" })).body.stream_id as number;
    const beforeDelete = await scrape("messaging");
    const deleted = await owner.post(`/streams/${streamId}/delete_topic`, { topic_name: "t" });
    expect(deleted.body).toMatchObject({ result: "success", complete: true });
    // (from the deployment's newest id: ten)
    expect(growth(beforeDelete, await scrape("messaging"), [finds])).toEqual({ [finds]: 3 });
  });
});

describe("notifications and the gateway's own figures", () => {
  it("a parked long-poll and the live event queues", async () => {
    const before = await scrape("notifications");
    const queues = sample("teamchat_event_queues", { service: "notifications" });
    const parked = sample("teamchat_parked_polls", { service: "notifications" });
    expect(before.get(parked)).toBe(0);
    const api = sys.api(member);
    const { queue_id } = (await api.post("/register", { event_types: JSON.stringify(["message"]) })).body;
    const poll = api.get("/events", { queue_id, last_event_id: -1 });
    const whileParked = await scrapeUntil("notifications", (now) => now.get(parked) === 1);
    expect(growth(before, whileParked, [queues])).toEqual({ [queues]: 1 });

    await sys
      .api(sys.owner)
      .post("/messages", { type: "private", to: JSON.stringify([member.userId]), content: "wake" });
    expect((await poll).body.events).toEqual([expect.objectContaining({ type: "message" })]);
    await scrapeUntil("notifications", (now) => now.get(parked) === 0);
  });

  it("a new queue joins the fan-out's list of the organization's queues: the list is not read again", async () => {
    const users: TestUser[] = [];
    for (let i = 0; i < 3; i++) users.push(await sys.makeUser(`queued${i}`));
    const register = async (u: TestUser) =>
      (await sys.api(u).post("/register", { event_types: JSON.stringify(["message"]) })).body.queue_id as string;
    const sendAndReceive = async (to: TestUser, queueId: string, content: string) => {
      const sent = await sys
        .api(member)
        .post("/messages", { type: "private", to: JSON.stringify([to.userId]), content });
      expect(sent.status).toBe(200);
      const polled = await sys.api(to).get("/events", { queue_id: queueId, last_event_id: -1 });
      expect(polled.body.events).toEqual([
        expect.objectContaining({ type: "message", message: expect.objectContaining({ id: sent.body.id }) }),
      ]);
    };
    // the organization's queues, read by a fan-out
    for (const u of users.slice(0, 2)) await register(u);
    const first = await register(users[2]!);
    await sendAndReceive(users[2]!, first, "listed");
    const returned = sample("teamchat_db_documents_returned_total", {
      command: "find",
      collection: "event_queues",
      service: "notifications",
    });
    const before = await scrape("notifications");

    const added = await register(users[0]!);
    await sendAndReceive(users[0]!, added, "to the new queue");

    // the poll reads its queue (one document); the fan-out found the new queue without reading the others
    expect(growth(before, await scrape("notifications"), [returned])[returned]).toBeLessThanOrEqual(1);
  });

  it("a register's user list: sent to the gateway once, then put in from the copy it keeps", async () => {
    const api = sys.api(await sys.makeUser("lister"));
    const [attached, held] = ["attached", "held"].map((source) =>
      sample("teamchat_shared_piece_bytes_total", { operation: "identity.register.state", source, service: "gateway" }),
    ) as [string, string];
    const register = async () => {
      const r = await api.post("/register", { fetch_event_types: JSON.stringify(["realm_user"]) });
      expect(r.status).toBe(200);
      expect((await api.delete("/events", { queue_id: r.body.queue_id })).status).toBe(200);
      return r.body as { realm_users: Array<{ user_id: number; full_name: string }> };
    };
    const first = await register();
    const before = await scrape("gateway");
    const second = await register();
    expect(second.realm_users).toEqual(first.realm_users);
    const grown = growth(before, await scrape("gateway"), [attached, held]);
    expect(grown[attached] ?? 0).toBe(0);
    // every entry but the caller's own (spliced in by identity) came from the gateway's copy
    const listBytes = Buffer.byteLength(JSON.stringify(second.realm_users));
    expect(grown[held]).toBeGreaterThan(listBytes * 0.8);

    // a changed list is new bytes: sent again, never the stale copy
    const renamed = await sys.api(sys.owner).patch(`/users/${member.userId}`, { full_name: "Member Renamed" });
    expect(renamed.status).toBe(200);
    const beforeRename = await scrape("gateway");
    let third = await register();
    for (
      let i = 0;
      i < 20 && third.realm_users.find((u) => u.user_id === member.userId)?.full_name !== "Member Renamed";
      i++
    ) {
      third = await register();
    }
    expect(third.realm_users.find((u) => u.user_id === member.userId)?.full_name).toBe("Member Renamed");
    expect(growth(beforeRename, await scrape("gateway"), [attached])[attached]).toBeGreaterThan(listBytes * 0.8);
  });

  it("a gateway that holds none of an organization's lists is sent them once, however many register at once", async () => {
    const users = [];
    for (let i = 0; i < 4; i++) users.push(await sys.makeUser(`burst${i}`));
    // a gateway just started: it holds no piece of any organization
    const url = await sys.startGateway();
    try {
      const attached = sample("teamchat_shared_piece_bytes_total", {
        operation: "identity.register.state",
        source: "attached",
        service: "gateway",
      });
      const attachedBytes = async () =>
        (await scrape("gateway", sys.metricsUrls("gateway").at(-1)!)).get(attached) ?? 0;
      expect(await attachedBytes()).toBe(0);
      const registered = await Promise.all(
        users.map(async (u) => {
          const api = new ApiClient(url, u);
          const r = await api.post("/register", { fetch_event_types: JSON.stringify(["realm_user"]) });
          expect(r.status).toBe(200);
          expect((await api.delete("/events", { queue_id: r.body.queue_id })).status).toBe(200);
          return r.body as { realm_users: Array<{ user_id: number }> };
        }),
      );
      const ids = registered[0]!.realm_users.map((u) => u.user_id);
      expect(ids).toEqual(expect.arrayContaining(users.map((u) => u.userId)));
      for (const r of registered) expect(r.realm_users.map((u) => u.user_id)).toEqual(ids);
      // the first register's reply brought the list; the three others put it in from the gateway's copy
      const listBytes = Buffer.byteLength(JSON.stringify(registered[0]!.realm_users));
      const bytes = await attachedBytes();
      expect(bytes).toBeGreaterThan(listBytes * 0.8);
      expect(bytes).toBeLessThan(listBytes * 1.5);
    } finally {
      await sys.stopGateway(url);
    }
  });

  it("rate-limit refusals, and the 429 among the gateway's statuses", async () => {
    const limited = await sys.makeUser("limited");
    const before = await scrape("gateway");
    let refused = 0;
    // a request whose counter update times out is let through (RateLimiter fails open), as under a loaded
    // machine's jest run: ask until the first refusal, with room for those
    for (let i = 0; i <= 4 * RATE_LIMIT && refused === 0; i++) {
      if ((await sys.api(limited).get("/users/me")).status === 429) refused++;
    }
    const refusals = sample("teamchat_rate_limit_refusals_total", { service: "gateway" });
    const tooMany = sample("teamchat_http_requests_total", {
      route: "/api/v1/users/me",
      method: "GET",
      status: 429,
      service: "gateway",
    });
    expect(growth(before, await scrape("gateway"), [refusals, tooMany])).toEqual({ [refusals]: 1, [tooMany]: 1 });
  });
});

describe("/health", () => {
  const dependency = { ok: true, latency_ms: expect.any(Number) };

  it("every process reports each of its dependencies with its latency", async () => {
    for (const name of PROCESSES) {
      const res = await fetch(`${listenerOf(name)}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: "ok",
        // the gateway keeps no database
        dependencies: name === "gateway" ? { nats: dependency } : { nats: dependency, database: dependency },
      });
    }
  });

  it("answers 503 when a dependency fails or does not answer in time, naming it", async () => {
    const listener = await startMetricsListener({
      port: 0,
      host: "127.0.0.1",
      metrics: new ServiceMetrics("health-test", false),
      dependencies: {
        nats: () => Promise.resolve(),
        database: () => Promise.reject(new Error("connection refused")),
        slow: () => new Promise(() => undefined),
      },
      log: createLogger("health-test", "silent"),
    });
    try {
      const res = await fetch(`${listener.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: "degraded",
        dependencies: {
          nats: dependency,
          database: { ok: false, latency_ms: expect.any(Number), error: "connection refused" },
          slow: { ok: false, latency_ms: expect.any(Number), error: "no answer within 2000 ms" },
        },
      });
      expect((await fetch(`${listener.url}/other`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});

describe("NATS service discovery ($SRV)", () => {
  /**
   * The answers to a `$SRV` request: the first `instances`, or (none given) all
   * that come before a pause of 500 ms.
   */
  const ask = async <T>(verb: "ping" | "info" | "stats", name: string, instances?: number): Promise<T[]> => {
    const client = new Svcm(sys.nc as unknown as ConstructorParameters<typeof Svcm>[0]).client(
      instances
        ? { strategy: "count", maxMessages: instances, maxWait: 5_000 }
        : { strategy: "stall", stall: 500, maxWait: 5_000 },
    );
    const answers: T[] = [];
    for await (const a of await client[verb](name)) answers.push(a as T);
    return answers;
  };

  it("every process answers $SRV.PING, and each of a service's instances answers for it", async () => {
    await sys.startService("identity");
    const pings = await ask<{ name: string; id: string; version: string }>("ping", "");
    expect(pings.map((p) => p.name).sort()).toEqual([...PROCESSES, "identity"].sort());
    expect(new Set(pings.map((p) => p.version))).toEqual(new Set([packageJson.version]));
    const identities = await ask<{ id: string }>("ping", "identity", 2);
    expect(new Set(identities.map((p) => p.id)).size).toBe(2);
  });

  it("$SRV.INFO lists a service's bus operations as endpoints in its queue group", async () => {
    const [info] = await ask<{ name: string; endpoints: unknown[] }>("info", "realm-config", 1);
    expect(info!.name).toBe("realm-config");
    expect(info!.endpoints).toContainEqual({
      name: "realm-config_channel_folders_create",
      subject: realmConfig.createChannelFolder.subject,
      queue_group: "realm-config",
      metadata: { http: "POST /channel_folders/create" },
    });
    // every process by its name: the bus services with their health operation among their endpoints, the gateway with none
    for (const name of PROCESSES) {
      const answers = await ask<{ name: string; endpoints: Array<{ subject: string }> }>("info", name, 1);
      expect(answers.map((a) => [a.name, a.endpoints.some((e) => e.subject === `${name}.health.ping`)])).toEqual([
        [name, name !== "gateway"],
      ]);
    }
    expect((await ask<{ endpoints: unknown[] }>("info", "gateway", 1))[0]!.endpoints).toEqual([]);
  });

  it("$SRV.STATS counts each operation's requests, errors and time, over every instance", async () => {
    type Stats = {
      endpoints: Array<{
        subject: string;
        num_requests: number;
        data?: { requests: number; errors: number; total_ms: number };
      }>;
    };
    const tally = (all: Stats[]) => {
      const endpoints = all.flatMap((s) => s.endpoints).filter((e) => e.subject === identity.getOwnUser.subject);
      return {
        requests: endpoints.reduce((n, e) => n + (e.data?.requests ?? 0), 0),
        received: endpoints.reduce((n, e) => n + e.num_requests, 0),
      };
    };
    const before = tally(await ask<Stats>("stats", "identity", 2));
    for (let i = 0; i < 2; i++) expect((await sys.api(sys.owner).get("/users/me")).status).toBe(200);
    const after = tally(await ask<Stats>("stats", "identity", 2));
    expect({ requests: after.requests - before.requests, received: after.received - before.received }).toEqual({
      requests: 2,
      received: 2,
    });
  });

  it("a stopped service leaves discovery, and the gateway counts its operations' 'no responders'", async () => {
    await sys.stopService("realm-config");
    // no instance subscribes to its $SRV subjects any more
    await expect(ask("ping", "realm-config", 1)).rejects.toThrow(/no responders/);
    const before = await scrape("gateway");
    await expectZulipError(sys.api(sys.owner).post("/channel_folders/create", { name: "Any", description: "" }), {
      status: 503,
      code: "SERVICE_UNAVAILABLE",
      msg: "Service unavailable: realm-config",
    });
    const noResponders = sample("teamchat_bus_client_failures_total", {
      operation: realmConfig.createChannelFolder.subject,
      reason: "no_responders",
      service: "gateway",
    });
    expect(growth(before, await scrape("gateway"), [noResponders])).toEqual({ [noResponders]: 1 });
  });
});
