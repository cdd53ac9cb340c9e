/**
 * The scenarios of one organization: closed-loop load with autocannon (BENCH_CONNECTIONS
 * connections for BENCH_SECONDS), the event-delivery latency under background traffic,
 * and after each one the time until the system answers normally again.
 */
import autocannon from "autocannon";
import { config, requestTimeoutSeconds, say } from "./config";
import { basicAuth, type Credentials } from "@teamchat/shared/src/testing/api";
import { encode, Http, ok, pct, pool, sleep, type Reply } from "./http";
import { retry, type Org } from "./org";
import { waitForIdle, type CpuMeter } from "./system";

export interface LoadResult {
  scenario: string;
  /** successful (2xx) answers per second */
  rps: number;
  /** latency of all answers, ms (NaN when nothing was answered) */
  p50: number;
  p99: number;
  /** connection errors + timeouts + non-2xx answers */
  errors: number;
  timeouts: number;
  completed: number;
  /** seconds until GET /users/me and POST /register answer again (null: not within 30 s) */
  recoverySeconds?: number | null;
  /** each process's CPU ms per successful answer (when the scenario was metered) */
  cpuMsPerRequest?: Record<string, number>;
  note?: string;
}

interface LoadOptions {
  port: number;
  host?: string;
  path: string;
  method?: "GET" | "POST";
  creds?: Credentials;
  form?: Record<string, unknown>;
  onBody?: (status: number, body: string) => void;
  cpu?: CpuMeter;
  /** how long (BENCH_SECONDS unless given) */
  seconds?: number;
}

export async function load(scenario: string, o: LoadOptions): Promise<LoadResult> {
  const seconds = o.seconds ?? config.seconds;
  say(`${scenario}: ${seconds}s, ${config.connections} connections...`);
  const headers: Record<string, string> = {};
  if (o.host) headers.host = o.host;
  if (o.creds) headers.authorization = basicAuth(o.creds);
  if (o.form) headers["content-type"] = "application/x-www-form-urlencoded";
  const request: autocannon.Request = {
    method: o.method ?? "GET",
    path: o.path,
    headers,
    body: o.form ? encode(o.form) : undefined,
  };
  if (o.onBody) {
    const onBody = o.onBody;
    request.onResponse = (status: number, body: string) => onBody(status, body);
  }
  o.cpu?.start();
  const r = await autocannon({
    url: `http://127.0.0.1:${o.port}`,
    requests: [request],
    connections: config.connections,
    duration: seconds,
    timeout: requestTimeoutSeconds,
  });
  const answered = r["2xx"] + r.non2xx;
  const result: LoadResult = {
    scenario,
    rps: r["2xx"] / (r.duration || seconds),
    p50: answered ? r.latency.p50 : NaN,
    p99: answered ? r.latency.p99 : NaN,
    errors: r.errors + r.non2xx,
    timeouts: r.timeouts,
    completed: r["2xx"],
    ...(o.cpu && { cpuMsPerRequest: o.cpu.perRequest(r["2xx"]) }),
  };
  // autocannon counts a timeout in `errors` as well
  say(
    `  ${result.rps.toFixed(1)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.errors} errors (${result.timeouts} timeouts > ${requestTimeoutSeconds} s)`,
  );
  return result;
}

/**
 * Overload recovery: from now, every 100 ms, GET /users/me then POST /register (then
 * DELETE /events) as the owner, until both succeed; up to 30 s. Returns the seconds
 * taken, or null.
 */
export async function recovery(org: Org): Promise<number | null> {
  const t0 = performance.now();
  const deadline = t0 + 30_000;
  let last = "";
  while (performance.now() < deadline) {
    const left = () => Math.max(1, deadline - performance.now());
    const me = await org.owner.get("/users/me", {}, left());
    if (me.status === 200) {
      const reg = await org.owner.post("/register", { queue_lifespan_secs: 60 }, left());
      if (reg.status === 200) {
        const secs = (performance.now() - t0) / 1000;
        reportUndeleted([await org.owner.delete("/events", { queue_id: reg.body.queue_id }, 10_000)]);
        say(`  answers normally again after ${secs.toFixed(2)} s`);
        return secs;
      }
      last = `POST /register: ${reg.status} ${reg.body.msg ?? ""}`;
    } else last = `GET /users/me: ${me.status} ${me.body.msg ?? ""}`;
    await sleep(100);
  }
  say(`  NOT answering normally 30 s after the load (last: ${last})`);
  return null;
}

/**
 * Says when DELETE /events failed: a queue left behind receives every event of
 * its organization until its lifespan ends, and slows down whatever the bench
 * measures next (an HTTP client bug once left every queue of the bench alive).
 */
export function reportUndeleted(replies: Reply[]): void {
  const failed = replies.filter((r) => r.status !== 200);
  if (!failed.length) return;
  const [first] = failed;
  say(
    `  WARNING: ${failed.length} of ${replies.length} queues not deleted (first: ${first!.status} ${first!.body.msg ?? JSON.stringify(first!.body)}); ` +
      "they receive every event of the organization until their lifespan ends, and the next figures are affected",
  );
}

/**
 * Before the next step: waits (up to 1 more minute) until the system answers normally,
 * so that one scenario's backlog does not slow the next one down.
 */
export async function settle(org: Org, recovered: number | null | undefined): Promise<void> {
  if (recovered !== null) return;
  const t0 = performance.now();
  for (let i = 0; i < 2; i++) {
    say("  waiting for the system to drain its backlog before the next step...");
    if ((await recovery(org)) !== null) {
      say(`  drained after ${((performance.now() - t0) / 1000).toFixed(0)} more s`);
      return;
    }
  }
  say("  still overloaded after 1 more minute: going on (the next figures are affected)");
}

export interface EventResult {
  scenario: string;
  p50: number;
  p99: number;
  /**
   * the measured sends' own POST /messages latency: when it is near p50 / p99, a delivery takes as
   * long as its send, and the send path (not the fan-out) is what to make faster
   */
  sendP50: number;
  sendP99: number;
  samples: number;
  errors: number;
  /** background sends per second achieved (20 asked) and the crowd's long-poll errors */
  backgroundPerSecond: number;
  backgroundErrors: number;
  crowdPollErrors: number;
  crowdEventsPerSecond: number;
  /** each process's CPU ms per send (background and measured), fan-out to the crowd included */
  cpuMsPerRequest?: Record<string, number>;
  /** why the scenario could not run */
  failure?: string;
  recoverySeconds?: number | null;
}

/** A user holding a parked GET /events, re-polling after each answer until stopped. */
export class Poller {
  running = true;
  errors = 0;
  events = 0;
  private lastEventId = -1;

  constructor(
    private readonly http: Http,
    readonly queueId: string,
    lastEventId: number,
    private readonly onEvents?: (events: Array<Record<string, unknown>>) => void,
  ) {
    this.lastEventId = lastEventId;
  }

  static async register(http: Http, onEvents?: Poller["onEvents"]): Promise<Poller> {
    const reg = ok(
      "POST /register (long-poll user)",
      await retry("POST /register (long-poll user)", () =>
        http.post("/register", { event_types: ["message"], queue_lifespan_secs: 600 }, 120_000),
      ),
    );
    return new Poller(http, reg.queue_id as string, reg.last_event_id as number, onEvents);
  }

  start(): this {
    void this.loop();
    return this;
  }

  private async loop() {
    while (this.running) {
      const r = await this.http.get("/events", { queue_id: this.queueId, last_event_id: this.lastEventId }, 90_000);
      if (!this.running) return;
      if (r.status === 200) {
        const events = r.body.events as Array<{ id: number; type: string }>;
        for (const e of events) this.lastEventId = Math.max(this.lastEventId, e.id);
        this.events += events.filter((e) => e.type !== "heartbeat").length;
        this.onEvents?.(events);
      } else {
        this.errors++;
        await sleep(250);
      }
    }
  }

  /** Stops polling and deletes the queue: DELETE /events' reply (see reportUndeleted). */
  stop(): Promise<Reply> {
    this.running = false;
    return this.http.delete("/events", { queue_id: this.queueId }, 10_000);
  }
}

/**
 * Event delivery: 100 users each holding a parked long-poll, 20 sends/s from another
 * sender to a channel all of them are in; a dedicated receiver (in a channel of its own,
 * so that its poll is parked when the measured message is sent) measures the time from
 * the start of POST /messages to its long-poll's answer, over BENCH_EVENT_SAMPLES samples.
 */
export async function eventDelivery(org: Org, cpu: CpuMeter): Promise<EventResult> {
  const tag = `[${org.subdomain}]`;
  say(`${tag} event delivery: ${config.crowd} long-poll users, ${config.backgroundPerSecond} sends/s background...`);
  const { crowd, receiver, pinger } = org;
  const pollers = await pool(crowd, 8, (u) => Poller.register(org.as(u)));
  pollers.forEach((p) => p.start());

  cpu.start();
  let bgSent = 0;
  let bgErrors = 0;
  let bgInFlight = 0;
  const bgStart = performance.now();
  const background = setInterval(() => {
    if (bgInFlight >= 40) return; // the server is behind: skip rather than pile up
    bgInFlight++;
    void org.owner
      .post("/messages", { type: "stream", to: "crowd", topic: "chatter", content: `background ${bgSent}` }, 30_000)
      .then((r) => {
        bgInFlight--;
        if (r.status === 200) bgSent++;
        else bgErrors++;
      });
  }, 1000 / config.backgroundPerSecond);

  const rx = org.as(receiver);
  const tx = org.as(pinger);
  const reg = ok(
    "POST /register (receiver)",
    await retry("POST /register (receiver)", () => rx.post("/register", { event_types: ["message"] }, 120_000)),
  );
  let lastEventId = reg.last_event_id as number;
  const samples: number[] = [];
  const sendMs: number[] = [];
  let errors = 0;
  await sleep(2000); // let the background traffic settle in
  const crowdEvents0 = pollers.reduce((s, p) => s + p.events, 0);
  const t0All = performance.now();
  const deadline = t0All + Math.max(60, config.seconds * 6) * 1000;
  for (let i = 0; i < config.eventSamples && performance.now() < deadline; i++) {
    const sampleDeadline = performance.now() + 15_000;
    let poll = rx.get("/events", { queue_id: reg.queue_id, last_event_id: lastEventId }, 20_000);
    await sleep(50); // let the poll park
    const t0 = performance.now();
    const send = await tx.post(
      "/messages",
      { type: "stream", to: "latency", topic: "ping", content: `ping ${i}` },
      15_000,
    );
    if (send.status !== 200) {
      errors++;
      await poll;
      continue;
    }
    let got = false;
    while (!got && performance.now() < sampleDeadline) {
      const r = await poll;
      const at = performance.now();
      if (r.status !== 200) break;
      const events = r.body.events as Array<{ id: number; type: string; message?: { id: number } }>;
      for (const e of events) lastEventId = Math.max(lastEventId, e.id);
      if (events.some((e) => e.type === "message" && e.message?.id === send.body.id)) {
        samples.push(at - t0);
        sendMs.push(send.ms);
        got = true;
      } else {
        poll = rx.get("/events", { queue_id: reg.queue_id, last_event_id: lastEventId }, 20_000);
      }
    }
    if (!got) errors++;
    if ((i + 1) % 50 === 0) say(`  ${i + 1}/${config.eventSamples} samples`);
  }
  const elapsed = (performance.now() - t0All) / 1000;
  if (samples.length + errors < config.eventSamples) {
    say(
      `  stopped after ${elapsed.toFixed(0)} s with ${samples.length + errors} of ${config.eventSamples} samples (time bound)`,
    );
  }
  clearInterval(background);
  const crowdEvents = pollers.reduce((s, p) => s + p.events, 0) - crowdEvents0;
  const delivered = [...samples].sort((a, b) => a - b);
  const sent = [...sendMs].sort((a, b) => a - b);
  const result: EventResult = {
    scenario: "event delivery (send → parked long-poll)",
    p50: pct(delivered, 50),
    p99: pct(delivered, 99),
    sendP50: pct(sent, 50),
    sendP99: pct(sent, 99),
    samples: samples.length,
    errors,
    backgroundPerSecond: bgSent / ((performance.now() - bgStart) / 1000),
    backgroundErrors: bgErrors,
    crowdPollErrors: pollers.reduce((s, p) => s + p.errors, 0),
    crowdEventsPerSecond: crowdEvents / elapsed,
    cpuMsPerRequest: cpu.perRequest(bgSent + samples.length),
  };
  say(
    `  p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms over ${samples.length} samples, ${errors} errors ` +
      `(the sends themselves: p50 ${result.sendP50.toFixed(1)} ms, p99 ${result.sendP99.toFixed(1)} ms); ` +
      `background ${result.backgroundPerSecond.toFixed(1)} sends/s, crowd received ${result.crowdEventsPerSecond.toFixed(0)} events/s`,
  );
  reportUndeleted([
    ...(await pool(pollers, 8, (p) => p.stop())),
    await rx.delete("/events", { queue_id: reg.queue_id }, 10_000),
  ]);
  return result;
}

/** Waits until the machine is at rest (waitForIdle), saying how long the last scenario's backlog took. */
async function untilAtRest(): Promise<void> {
  const waited = await waitForIdle();
  if (waited >= 3) say(`  at rest after ${waited.toFixed(0)} s${waited >= 60 ? " (gave up waiting: still busy)" : ""}`);
}

/** All scenarios for one organization, each followed by the recovery probe and a wait until the machine is at rest. */
export async function runScenarios(
  org: Org,
  port: number,
  helloPort: number,
  cpu: CpuMeter,
): Promise<{ loads: LoadResult[]; events: EventResult }> {
  const host = `${org.subdomain}.localhost:${port}`;
  const tag = `[${org.subdomain}]`;
  const loads: LoadResult[] = [];
  // Every scenario starts with the machine at rest: the one before leaves work behind it (the event
  // delivery's fan-out to its crowd, queued emails) that would otherwise be measured as the next one's.
  const after = async (r: LoadResult) => {
    r.recoverySeconds = await recovery(org);
    loads.push(r);
    await settle(org, r.recoverySeconds);
    await untilAtRest();
  };
  const owner = org.owner.creds;
  const channelNarrow = JSON.stringify([{ operator: "channel", operand: org.historyChannel }]);

  loads.push(await load(`${tag} baseline: Fastify hello-world`, { port: helloPort, path: "/hello" }));
  await after(
    await load(`${tag} GET /users/me (authenticated)`, { port, host, path: "/api/v1/users/me", creds: owner, cpu }),
  );
  // Each of the pair starts with the machine at rest (the earlier sends' fan-out, notification decisions
  // and queued emails done), so that the second measures its own background work only.
  await after(
    await load(`${tag} POST /messages (channel, ${config.subscribers} subscribers)`, {
      port,
      host,
      path: "/api/v1/messages",
      method: "POST",
      creds: owner,
      form: { type: "stream", to: org.benchChannel, topic: "load", content: "hello **world**" },
      cpu,
    }),
  );
  // The same sends where every recipient is notified: what deciding, queueing and batching missed-message
  // emails costs the sender, measured against the scenario before (whose recipients get nothing).
  await after(
    await load(
      `${tag} POST /messages, ${config.subscribers - 1} recipients emailed (channel, away, notifications on)`,
      {
        port,
        host,
        path: "/api/v1/messages",
        method: "POST",
        creds: owner,
        form: { type: "stream", to: org.notifiedChannel, topic: "load", content: "hello **world**" },
        cpu,
      },
    ),
  );
  let events: EventResult;
  try {
    events = await eventDelivery(org, cpu);
  } catch (err) {
    // the bench goes on: the scenario is reported as failed
    say(`  event delivery failed: ${(err as Error).message}`);
    events = {
      scenario: "event delivery (send → parked long-poll) FAILED",
      p50: NaN,
      p99: NaN,
      sendP50: NaN,
      sendP99: NaN,
      samples: 0,
      errors: config.eventSamples,
      backgroundPerSecond: NaN,
      backgroundErrors: 0,
      crowdPollErrors: 0,
      crowdEventsPerSecond: NaN,
      failure: (err as Error).message,
    };
  }
  events.recoverySeconds = await recovery(org);
  await settle(org, events.recoverySeconds);
  await untilAtRest();
  await after(
    await load(`${tag} GET /messages (newest 100, channel narrow)`, {
      port,
      host,
      path: `/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow: channelNarrow })}`,
      creds: owner,
      cpu,
    }),
  );
  const unreadNarrow = JSON.stringify([{ operator: "is", operand: "unread" }]);
  await after(
    await load(`${tag} GET /messages (first_unread, is:unread, ${org.unread} unread)`, {
      port,
      host,
      path: `/api/v1/messages?${new URLSearchParams({ anchor: "first_unread", num_before: "0", num_after: "100", narrow: unreadNarrow })}`,
      creds: org.reader,
      cpu,
    }),
  );
  // Search as Zulip's search box asks it (the reader's own history, newest first), through the search index:
  // a word of one old message, and the newest page of a word in every message
  const searchPath = (operand: string) =>
    `/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow: JSON.stringify([{ operator: "search", operand }]) })}`;
  await after(
    await load(`${tag} GET /messages (search, rare word: 1 of ${org.size})`, {
      port,
      host,
      path: searchPath(org.searchWords.rare),
      creds: org.reader,
      cpu,
    }),
  );
  await after(
    await load(`${tag} GET /messages (search, common word: newest 100 of ${org.size})`, {
      port,
      host,
      path: searchPath(org.searchWords.common),
      creds: org.reader,
      cpu,
    }),
  );
  // has: as a search-box filter: the one message with a link, read through the search engine's partial index
  await after(
    await load(`${tag} GET /messages (has:link, 1 of ${org.size})`, {
      port,
      host,
      path: `/api/v1/messages?${new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow: JSON.stringify([{ operator: "has", operand: "link" }]) })}`,
      creds: org.reader,
      cpu,
    }),
  );
  // Each registered queue gets a 60 s lifespan and is deleted after the load as well.
  const queues: string[] = [];
  const reg = await load(`${tag} POST /register (50 channels, ${org.unread} unread)`, {
    port,
    host,
    path: "/api/v1/register",
    method: "POST",
    creds: org.reader,
    form: { queue_lifespan_secs: 60 },
    cpu,
    onBody: (status, body) => {
      if (status !== 200) return;
      const id = /"queue_id":"([^"]+)"/.exec(body)?.[1];
      if (id) queues.push(id);
    },
  });
  await after(reg);
  if (queues.length) {
    say(`  deleting the ${queues.length} queues it registered...`);
    const rd = org.as(org.reader);
    reportUndeleted(await pool(queues, 4, (q) => rd.delete("/events", { queue_id: q }, 10_000)));
  }
  return { loads, events };
}
