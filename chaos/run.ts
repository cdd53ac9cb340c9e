/**
 * `npm run chaos` (`-- --short` in the test command): the fault test under load.
 *
 * Two instances of every service, 50 users each holding a long-poll and
 * sending, reading, marking read and reacting in a loop; every 5 s one random
 * instance is killed with SIGKILL and started again; then NATS is restarted
 * once and the database once. Counted at the end: every acknowledged send is
 * in the channel exactly once and reached every user's queue exactly once;
 * failed requests by kind (only 503/504 are acceptable, at most 0.1 %); how
 * long the system took to answer again after each server restart. Sends carry
 * an idempotency key and are retried on 503/504, as a careful client does; a
 * request refused by a dead gateway's port goes to the other gateway, as a
 * balancer does.
 *
 * Missed-message notifications under the same faults: the users also send
 * direct messages to two users who are away (no event queue, 1 s mail
 * batches, a device of each kind registered for push), mailed through a real
 * SMTP server and pushed through a local push notification service, both
 * started here and both failing a few requests now and then; every
 * acknowledged direct message must be mailed to its user exactly once and
 * pushed to each of the user's devices exactly once, and the services'
 * metrics must show the failures (chaos/missed-messages.ts).
 *
 * `-- --nats-cluster 3` (`npm run chaos:nodes`), the node-loss test: the same
 * load and counts on a NATS cluster of that many nodes (every stream and
 * bucket replicated on each); instead of the random kills and restarts, one
 * NATS node is killed with SIGKILL and started again later, then one instance
 * of each service in turn.
 */
import { parseArgs } from "node:util";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { DOMAIN_EVENTS_STREAM, PROCESSES, natsServers } from "@teamchat/shared";
import type { NatsCluster } from "../scripts/lib/infra";
import { createOrganization } from "../scripts/lib/organization";
import { Http, ok, pool, sleep, type Reply } from "../bench/http";
import { startSmtpServer, type TestSmtpServer } from "../test/support/smtp";
import { startTestBouncer, type TestBouncer } from "../test/support/push-bouncer";
import { startCluster, type Cluster, type Instance } from "./cluster";
import {
  CounterTotals,
  awaitArrivals,
  awayUserDevices,
  countArrivals,
  mailWay,
  pushWay,
  type AwayDm,
  type AwayUser,
} from "./missed-messages";

const { values: options } = parseArgs({
  options: { short: { type: "boolean", default: false }, "nats-cluster": { type: "string", default: "1" } },
});
const SHORT = options.short!;
/** `--nats-cluster 3`: the node-loss test (a NATS cluster, every stream on all its nodes) instead of the restarts. */
const NATS_NODES = Number(options["nats-cluster"]);
const KILL_PHASE_SECONDS = Number(process.env.CHAOS_SECONDS ?? (SHORT ? 20 : 60));
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? (SHORT ? 20 : 50));
const KILL_EVERY_MS = 5_000;
/** each user's pace: one action about every this many ms */
const ACTION_INTERVAL_MS = 1_000;
const SEND_ATTEMPTS = 6;
const MAX_FAILURE_RATE = 0.001;
const MAX_RECOVERY_MS = 5_000;
/** How long a killed NATS node stays down, under load, before it is started again. */
const NODE_DOWN_MS = 10_000;
const CHANNEL = "chaos";
/** the share of actions that are a direct message to a user who is away */
const AWAY_DM_SHARE = 0.1;
const AWAY_USERS = 2;
/** During the kills, the SMTP server and the push notification service fail a few requests this often. */
const FAIL_EVERY_MS = 10_000;
/** The iOS app id of the away users' APNs tokens. */
const APNS_APP_ID = "org.zulip.Zulip";
const EMOJI = ["+1", "tada", "heart", "smile", "rocket", "eyes", "fire", "star", "check", "clap"];

const say = (line: string) => process.stdout.write(`[chaos] ${new Date().toISOString().slice(11, 23)} ${line}\n`);

type User = { email: string; apiKey: string; id: number };

/** Every request's outcome, by kind. */
class Tally {
  readonly byStatus = new Map<string, number>();
  /** failures by what was going on when they were answered (instance kills, a server's restart) */
  readonly byPhase = new Map<string, number>();
  phase = "instance kills";
  total = 0;
  note(what: string, r: Reply): void {
    this.total++;
    if (r.status >= 500 || r.status === 0) {
      this.byPhase.set(this.phase, (this.byPhase.get(this.phase) ?? 0) + 1);
      // a proxy in front answers 502 for a request whose gateway died before replying
      const dropped = r.status === 0 && /ECONNRESET|socket hang up/.test(String(r.body.msg));
      const status = dropped ? 502 : r.status || `no reply (${String(r.body.msg).slice(0, 60)})`;
      const key = `${what}: ${status}`;
      this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
      if (process.env.CHAOS_DEBUG) say(`    failed (${this.phase}): ${key} ${String(r.body.msg).slice(0, 120)}`);
    }
  }
  get failures(): number {
    return [...this.byStatus.values()].reduce((a, b) => a + b, 0);
  }
  /** failures that are not 503/504 (or 502: see note) */
  get unexpected(): string[] {
    return [...this.byStatus.keys()].filter((k) => !/: 50[234]$/.test(k));
  }
}

/**
 * Requests through either gateway, as a reverse proxy in front of them would
 * send them (nginx's default proxy_next_upstream): a request a dead gateway's
 * port refused goes to the other one; a GET whose gateway died before
 * answering is sent again (idempotent), a POST is not.
 */
class Balanced {
  constructor(
    private readonly gateways: Http[],
    private readonly tally: Tally,
  ) {}
  async call(what: string, method: "GET" | "POST", path: string, params: Record<string, unknown>, timeoutMs = 30_000) {
    const start = Math.floor(Math.random() * this.gateways.length);
    let r: Reply = { status: 0, body: {}, ms: 0 };
    for (let i = 0; i < this.gateways.length * 3; i++) {
      const gw = this.gateways[(start + i) % this.gateways.length]!;
      r = await (method === "GET" ? gw.get(path, params, timeoutMs) : gw.post(path, params, timeoutMs));
      const refused = r.status === 0 && /ECONNREFUSED/.test(String(r.body.msg));
      const dropped = r.status === 0 && /ECONNRESET|socket hang up/.test(String(r.body.msg));
      if (!refused && !(dropped && method === "GET")) break;
      await sleep(100);
    }
    this.tally.note(what, r);
    return r;
  }
}

/** A user's long-poll loop: which message ids came, how often. */
class Poller {
  readonly received = new Map<number, number>();
  lost = false;
  running = true;
  constructor(
    private readonly http: Balanced,
    private queueId: string,
    private last: number,
  ) {}
  async loop(): Promise<void> {
    while (this.running) {
      const r = await this.http.call(
        "GET /events",
        "GET",
        "/events",
        { queue_id: this.queueId, last_event_id: this.last },
        120_000,
      );
      if (r.status === 200) {
        for (const e of r.body.events as Array<{ id: number; type: string; message?: { id: number } }>) {
          this.last = Math.max(this.last, e.id);
          if (e.type === "message") this.received.set(e.message!.id, (this.received.get(e.message!.id) ?? 0) + 1);
        }
      } else if (r.status === 400 && r.body.code === "BAD_EVENT_QUEUE_ID") {
        this.lost = true;
        return;
      } else await sleep(200);
    }
  }
}

/** CHAOS_DEBUG: the JetStream streams' sequences, to see whether a restart lost any stored message. */
async function debugStreams(cluster: Cluster, when: string): Promise<void> {
  if (!process.env.CHAOS_DEBUG) return;
  const nc = await connect({ servers: natsServers(cluster.natsUrl), name: "chaos-debug" });
  const jsm = await jetstreamManager(nc);
  for await (const s of jsm.streams.list()) {
    say(
      `    ${when}: ${s.config.name} first ${s.state.first_seq} last ${s.state.last_seq} messages ${s.state.messages}`,
    );
  }
  await nc.close();
}

/**
 * The node-loss schedule: the node leading the domain events' stream (the
 * hardest to lose: its leader must move) is killed with SIGKILL, stays down
 * under load, and is started again; then one instance of each service in turn.
 */
async function loseNodes(
  cluster: Cluster,
  nats: NatsCluster,
  recovery: (what: string, fault: () => Promise<void>) => Promise<void>,
  kill: (victim: Instance) => Promise<void>,
): Promise<void> {
  say("load running; killing the domain events' stream leader...");
  await sleep(KILL_EVERY_MS);
  const nc = await connect({ servers: natsServers(cluster.natsUrl), name: "chaos" });
  const leader = (await (await jetstreamManager(nc)).streams.info(DOMAIN_EVENTS_STREAM)).cluster?.leader;
  await nc.close();
  const node = Math.max(0, Number(leader?.replace("nats-", "")) - 1 || 0);
  const name = `nats-${node + 1}`;
  await recovery(`SIGKILL NATS node ${name} (${DOMAIN_EVENTS_STREAM}' leader)`, () => nats.nodes[node]!.kill());
  await sleep(NODE_DOWN_MS);
  await recovery(`NATS node ${name} restarted`, () => nats.restartNode(node));
  for (const service of PROCESSES) {
    await sleep(KILL_EVERY_MS);
    const instances = cluster.instances.filter((i) => i.service === service);
    await kill(instances[Math.floor(Math.random() * instances.length)]!);
  }
}

async function setUp(cluster: Cluster, bouncer: TestBouncer) {
  const nc = await connect({ servers: natsServers(cluster.natsUrl), name: "chaos" });
  const made = await createOrganization(nc, {
    subdomain: "",
    name: "Chaos",
    ownerEmail: "owner@chaos.example",
    ownerName: "Owner",
    ownerPassword: null,
  });
  await nc.close();
  const host = `localhost:${cluster.gatewayPorts[0]}`;
  const owner: User = { email: "owner@chaos.example", apiKey: made.apiKey, id: made.userId };
  const as = (u: User) => cluster.gatewayPorts.map((port) => new Http(port, host, u));
  const ownerHttp = as(owner)[0]!;
  const makeUser = async (email: string, fullName: string): Promise<User> => {
    const password = `${email}-password`;
    const created = ok(
      `POST /users ${email}`,
      await ownerHttp.post("/users", { email, password, full_name: fullName }),
    );
    const key = ok(
      `POST /fetch_api_key ${email}`,
      await new Http(cluster.gatewayPorts[0]!, host, null).post("/fetch_api_key", { username: email, password }),
    );
    return { email, apiKey: key.api_key as string, id: created.user_id as number };
  };
  say(`creating ${CLIENTS} users...`);
  const users = await pool(
    Array.from({ length: CLIENTS }, (_, i) => i),
    4,
    (i) => makeUser(`user${i}@chaos.example`, `User ${i}`),
  );
  ok(
    "POST /users/me/subscriptions",
    await ownerHttp.post("/users/me/subscriptions", {
      subscriptions: [{ name: CHANNEL }],
      principals: [owner.id, ...users.map((u) => u.id)],
    }),
  );
  const awayUsers = await pool(
    Array.from({ length: AWAY_USERS }, (_, i) => i),
    AWAY_USERS,
    async (i) => {
      const user = await makeUser(`away${i}@chaos.example`, `Away ${i}`);
      return awayWithDevices(user, as(user)[0]!, bouncer);
    },
  );
  return { owner, users, as, awayUsers };
}

/**
 * A user who is away: never polls, mailed after 1 s batches, with an FCM and
 * an APNs token and an end-to-end encrypted device registered through the
 * API, as the mobile apps register them.
 */
async function awayWithDevices({ email, id }: User, http: Http, bouncer: TestBouncer): Promise<AwayUser> {
  ok(
    "PATCH /settings",
    await http.call("PATCH", "/settings", { email_notifications_batching_period_seconds: 1 }, 30_000),
  );
  const devices = await awayUserDevices(email);
  ok("POST /users/me/android_gcm_reg_id", await http.post("/users/me/android_gcm_reg_id", { token: devices.fcmToken }));
  ok(
    "POST /users/me/apns_device_token",
    await http.post("/users/me/apns_device_token", { token: devices.apnsToken, appid: APNS_APP_ID }),
  );
  ok(
    "POST /mobile_push/register",
    await http.post("/mobile_push/register", {
      token_kind: "fcm",
      push_account_id: id,
      push_public_key: devices.e2eeDevice.pushPublicKey,
      bouncer_public_key: bouncer.publicKey,
      encrypted_push_registration: bouncer.sealRegistration({ token: devices.e2eeToken, token_kind: "fcm" }),
    }),
  );
  // the registration goes to the bouncer through the push work queue: pushed to once it is active
  // (a queue of push_device events only: the user still has none that takes messages)
  for (const deadline = Date.now() + 60_000; ; await sleep(500)) {
    const state = ok(
      "POST /register",
      await http.post("/register", { event_types: ["push_device"], fetch_event_types: ["push_device"] }),
    );
    const device = (state.push_devices as Record<string, { status: string }>)[String(id)];
    if (device?.status === "active") break;
    if (Date.now() > deadline) throw new Error(`the push registration of ${email} is ${JSON.stringify(device)}`);
  }
  return { email, id, ...devices };
}

async function main() {
  say(
    NATS_NODES > 1
      ? `node loss on ${NATS_NODES} NATS nodes: ${CLIENTS} users; a NATS node killed and restarted, then one instance of each service`
      : `${SHORT ? "short" : "full"} run: ${CLIENTS} users, ${KILL_PHASE_SECONDS} s of kills every ${KILL_EVERY_MS / 1000} s`,
  );
  const smtp = await startSmtpServer();
  const bouncer = await startTestBouncer();
  const cluster = await startCluster(
    { instancesPerService: 2, natsNodes: NATS_NODES, env: { SMTP_URL: smtp.url, ...bouncer.env } },
    say,
  );
  let exitCode = 1;
  try {
    exitCode = await run(cluster, smtp, bouncer);
  } catch (err) {
    say(`failed: ${(err as Error).stack ?? err}`);
    say("the services' logs are in the data directory above (CHAOS_KEEP_DATA=1 keeps it)");
  } finally {
    await cluster.stop();
    await smtp.stop();
    await bouncer.close();
  }
  process.exit(exitCode);
}

async function run(cluster: Cluster, smtp: TestSmtpServer, bouncer: TestBouncer): Promise<number> {
  const { owner, users, as, awayUsers } = await setUp(cluster, bouncer);
  const ways = [mailWay(smtp), pushWay(bouncer, awayUsers)];
  const failureCounts = new CounterTotals(cluster, ways);
  const tally = new Tally();
  const balanced = (u: User) => new Balanced(as(u), tally);

  say("registering a queue for every user...");
  const pollers = await pool(users, 8, async (u) => {
    const reg = ok("POST /register", await as(u)[0]!.post("/register", { event_types: ["message"] }));
    return new Poller(balanced(u), reg.queue_id as string, reg.last_event_id as number);
  });
  const pollLoops = pollers.map((p) => p.loop());

  /** token → the message id its send was acknowledged with */
  const acked = new Map<string, number>();
  /** message id → when its send was acknowledged (to place a missing delivery against the restarts) */
  const ackedAt = new Map<number, number>();
  /** the faults (kills, restarts) and when each began */
  const marks: Array<[string, number]> = [];
  /** Where a moment falls among the faults: after the one before it, before the one after it. */
  const sinceFaults = (at: number) => {
    const before = marks.filter(([, t]) => t <= at).at(-1);
    const after = marks.find(([, t]) => t > at);
    return (
      [before && `${at - before[1]} ms after "${before[0]}"`, after && `${after[1] - at} ms before "${after[0]}"`]
        .filter(Boolean)
        .join(", ") || "with no fault around"
    );
  };
  const unacked = new Set<string>();
  /** direct messages to the users who are away: acknowledged, and never acknowledged */
  const awayAcked: AwayDm[] = [];
  const awayUnacked = new Set<string>();
  let running = true;
  /** Sends with an idempotency key, again on 503/504 as a careful client does. */
  const send = async (http: Balanced, params: Record<string, unknown>, token: string): Promise<Reply> => {
    let r: Reply | undefined;
    for (let attempt = 0; attempt < SEND_ATTEMPTS; attempt++) {
      r = await http.call("POST /messages", "POST", "/messages", { ...params, content: token, idempotency_key: token });
      if (r.status !== 503 && r.status !== 504 && r.status !== 0) break;
      await sleep(1000);
    }
    return r!;
  };
  const actor = async (u: User, i: number) => {
    const http = balanced(u);
    const seen: number[] = [];
    for (let n = 0; running; n++) {
      await sleep(ACTION_INTERVAL_MS * (0.5 + Math.random()));
      const roll = Math.random();
      if (roll < AWAY_DM_SHARE) {
        const token = `dm${i}-${n}`;
        const to = awayUsers[Math.floor(Math.random() * awayUsers.length)]!;
        const r = await send(http, { type: "direct", to: [to.id] }, token);
        if (r.status === 200) awayAcked.push({ token, id: r.body.id as number, to, at: Date.now() });
        else awayUnacked.add(token);
      } else if (roll < 0.4 || seen.length === 0) {
        const token = `c${i}-${n}`;
        const r = await send(http, { type: "stream", to: CHANNEL, topic: `user ${i}` }, token);
        if (r.status === 200) {
          acked.set(token, r.body.id as number);
          ackedAt.set(r.body.id as number, Date.now());
          seen.push(r.body.id as number);
        } else unacked.add(token);
      } else if (roll < 0.7) {
        const r = await http.call("GET /messages", "GET", "/messages", {
          anchor: "newest",
          num_before: 20,
          num_after: 0,
          narrow: [{ operator: "channel", operand: CHANNEL }],
        });
        if (r.status === 200) for (const m of r.body.messages as Array<{ id: number }>) seen.push(m.id);
      } else if (roll < 0.85) {
        await http.call("POST /messages/flags", "POST", "/messages/flags", {
          messages: [seen[Math.floor(Math.random() * seen.length)]],
          op: "add",
          flag: "read",
        });
      } else {
        const id = seen[Math.floor(Math.random() * seen.length)];
        await http.call("POST /messages/{id}/reactions", "POST", `/messages/${id}/reactions`, {
          emoji_name: EMOJI[Math.floor(Math.random() * EMOJI.length)],
        });
      }
    }
  };
  const actors = users.map((u, i) => actor(u, i));

  // the recovery probe is a measurement sent every 100 ms through the outage: its failures are not the load's
  const probe = new Balanced(as(owner), new Tally());
  const recoveries: Array<[string, number]> = [];
  /** Does `fault`, then measures how long from then until a send goes through again. */
  const recovery = async (what: string, fault: () => Promise<void>) => {
    say(`${what}...`);
    marks.push([what, Date.now()]);
    tally.phase = what;
    await fault();
    const started = Date.now();
    for (let n = 0; ; n++) {
      const r = await probe.call(
        "probe",
        "POST",
        "/messages",
        {
          type: "stream",
          to: CHANNEL,
          topic: "probe",
          content: `probe ${what} ${n}`,
        },
        10_000,
      );
      if (r.status === 200) break;
      if (process.env.CHAOS_DEBUG)
        say(`    probe ${Date.now() - started} ms: ${r.status} ${String(r.body.msg).slice(0, 120)}`);
      if (Date.now() - started > 60_000) {
        throw new Error(
          `no successful send within 60 s of: ${what}; the last reply: ${r.status} ${JSON.stringify(r.body)}`,
        );
      }
      await sleep(100);
    }
    const ms = Date.now() - started;
    say(`  sends go through ${ms} ms after: ${what}`);
    recoveries.push([what, ms]);
  };
  const kills: string[] = [];
  const kill = async (victim: Instance) => {
    kills.push(victim.label);
    marks.push([`SIGKILL ${victim.label}`, Date.now()]);
    say(`  SIGKILL ${victim.label} (sends acknowledged so far: ${acked.size})`);
    await failureCounts.bank(victim);
    await cluster.killAndRestart(victim);
  };

  if (cluster.natsCluster) await loseNodes(cluster, cluster.natsCluster, recovery, kill);
  else {
    say("load running; killing one random instance every 5 s, the mail server and the bouncer failing now and then...");
    const killUntil = Date.now() + KILL_PHASE_SECONDS * 1000;
    let failAt = Date.now();
    while (Date.now() < killUntil) {
      await sleep(KILL_EVERY_MS);
      if (Date.now() >= failAt) {
        for (const way of ways) way.fail();
        failAt = Date.now() + FAIL_EVERY_MS;
      }
      await kill(cluster.instances[Math.floor(Math.random() * cluster.instances.length)]!);
    }
    await sleep(3_000);
    await debugStreams(cluster, "before the NATS restart");
    await recovery("NATS restarted", async () => {
      await cluster.restartNats();
      await debugStreams(cluster, "after the NATS restart");
    });
    await sleep(3_000);
    await recovery("the database restarted", cluster.restartDatabase);
  }
  await sleep(3_000);

  say("stopping the load; waiting for every queue to catch up...");
  running = false;
  await Promise.all(actors);
  const ackedIds = [...acked.values()];
  const caughtUp = () => pollers.every((p) => p.lost || ackedIds.every((id) => p.received.has(id)));
  for (const deadline = Date.now() + 120_000; !caughtUp() && Date.now() < deadline;) await sleep(500);
  pollers.forEach((p) => (p.running = false));

  say("waiting for the missed-message emails and pushes...");
  await awaitArrivals(ways, awayAcked);
  const arrivals = await Promise.all(ways.map((way) => countArrivals(way, awayAcked, failureCounts)));

  say("reading the channel's history...");
  const history = new Map<string, number>();
  const reader = new Balanced(as(owner), new Tally());
  for (let anchor = 0; ;) {
    const r = ok(
      "GET /messages",
      await reader.call("GET /messages", "GET", "/messages", {
        anchor,
        num_before: 0,
        num_after: 1000,
        include_anchor: false,
        narrow: [{ operator: "channel", operand: CHANNEL }],
        apply_markdown: false,
      }),
    );
    const messages = r.messages as Array<{ id: number; content: string }>;
    for (const m of messages) history.set(m.content, (history.get(m.content) ?? 0) + 1);
    if (r.found_newest || messages.length === 0) break;
    anchor = messages.at(-1)!.id;
  }

  const lostSends = [...acked.keys()].filter((t) => !history.has(t));
  const duplicatedSends = [...history.entries()].filter(([t, n]) => n > 1 && (acked.has(t) || unacked.has(t)));
  const postedUnacked = [...unacked].filter((t) => history.has(t));
  let missingDeliveries = 0;
  let duplicateDeliveries = 0;
  for (const p of pollers) {
    for (const id of ackedIds) {
      const n = p.received.get(id) ?? 0;
      if (n === 0) missingDeliveries++;
      if (n > 1) duplicateDeliveries += n - 1;
    }
  }
  const lostQueues = pollers.filter((p) => p.lost).length;
  const missingIds = ackedIds.filter((id) => pollers.some((p) => !p.lost && !p.received.has(id)));
  const failureRate = tally.failures / Math.max(1, tally.total);

  say("");
  say("=".repeat(72));
  say(`kills: ${kills.length} (${kills.join(", ")})`);
  say(`requests: ${tally.total}; failed: ${tally.failures} (${(failureRate * 100).toFixed(3)} %)`);
  for (const [k, n] of tally.byStatus) say(`  ${k}: ${n}`);
  if (tally.failures) say(`  by phase: ${[...tally.byPhase].map(([p, n]) => `${p} ${n}`).join(", ")}`);
  say(`sends acknowledged: ${acked.size}; lost: ${lostSends.length}; duplicated: ${duplicatedSends.length}`);
  say(`sends never acknowledged: ${unacked.size} (posted anyway, once: ${postedUnacked.length})`);
  say(
    `deliveries to ${pollers.length} queues: missing ${missingDeliveries}, duplicated ${duplicateDeliveries}; queues lost: ${lostQueues}`,
  );
  for (const id of missingIds.slice(0, 10)) {
    const queues = pollers.filter((p) => !p.lost && !p.received.has(id)).length;
    say(`  message ${id} missing from ${queues} queues; acknowledged ${sinceFaults(ackedAt.get(id)!)}`);
  }
  say(`direct messages to the users away: acknowledged ${awayAcked.length} (never acknowledged ${awayUnacked.size})`);
  for (const { line, way, missing, twice } of arrivals) {
    say(`  ${line}`);
    const times = way.arrivalTimes?.();
    for (const d of twice.slice(0, 5)) {
      say(`    ${d}: ${(times?.get(d) ?? []).map((t) => sinceFaults(t)).join("; then ") || "twice"}`);
    }
    // what a run that failed leaves to go on: when each was sent, against the faults, and the service's lines
    for (const dm of missing.slice(0, 5)) {
      say(`    ${dm.token} (message ${dm.id} to user ${dm.to.id}) acknowledged ${sinceFaults(dm.at)}`);
    }
    if (missing.length) {
      const service = `${way.failureMetric.service}#`;
      const quoted = cluster.lines().filter((l) => l.startsWith(service) && way.logLines.test(l));
      say(`    ${service.slice(0, -1)}'s last lines about it (${quoted.length} in all):`);
      for (const l of quoted.slice(-15)) say(`      ${l.slice(0, 400)}`);
    }
  }
  say(`recovery: ${recoveries.map(([what, ms]) => `${ms} ms after "${what}"`).join(", ")}`);
  // What must hold in every run; the rate and recovery times are figures of a long run (the full one
  // enforces them): a short one has too few requests for a 0.1 % bound to mean anything.
  const invariants = [
    lostSends.length && `${lostSends.length} acknowledged sends lost`,
    duplicatedSends.length && `${duplicatedSends.length} sends posted twice`,
    missingDeliveries && `${missingDeliveries} deliveries missing`,
    duplicateDeliveries && `${duplicateDeliveries} deliveries duplicated`,
    lostQueues && `${lostQueues} event queues lost`,
    tally.unexpected.length && `failures other than 502/503/504: ${tally.unexpected.join("; ")}`,
    cluster.crashes.length && `instances crashed: ${cluster.crashes.join(", ")}`,
    ...arrivals.flatMap((a) => a.problems),
  ];
  const figures = [
    failureRate > MAX_FAILURE_RATE && `failure rate ${(failureRate * 100).toFixed(3)} % > ${MAX_FAILURE_RATE * 100} %`,
    ...recoveries.map(([what, ms]) => ms > MAX_RECOVERY_MS && `recovery after "${what}" took ${ms} ms`),
  ];
  const problems = [...invariants, ...(SHORT ? [] : figures)].filter(Boolean);
  say(problems.length ? `FAILED: ${problems.join("; ")}` : "passed");
  say("=".repeat(72));
  await Promise.all(pollLoops.map((l) => Promise.race([l, sleep(1000)])));
  return problems.length ? 1 : 0;
}

void main();
