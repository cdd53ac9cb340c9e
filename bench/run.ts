/**
 * `npm run bench`: the system as `npm start` runs it (each service its own
 * process, on its own nats-server and database in a throw-away directory),
 * loaded over loopback with autocannon, beside a bare Fastify hello-world
 * measured in the same run. Prints req/s, p50/p99 latency and each process's
 * peak memory (nats-server and the database included), with ratios to the
 * baseline; writes bench/results/latest.{json,md}.
 *   BENCH_SECONDS (default 10) per scenario, BENCH_CONNECTIONS (default 16).
 */
import autocannon from "autocannon";
import { connect } from "@nats-io/transport-node";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROCESSES } from "@teamchat/shared";
import { ApiClient, ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { freePort, provisionInfra, REPO_ROOT } from "../scripts/lib/infra";
import { createOrganization } from "../scripts/lib/organization";
import { spawnService, stopServices, waitForHealth, type ServiceProcess } from "../scripts/lib/services";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 10_000);
const SUBSCRIBERS = 10;
const EVENT_SAMPLES = Number(process.env.BENCH_EVENT_SAMPLES ?? 200);

const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

interface Result {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const basicAuth = (c: Credentials) => `Basic ${Buffer.from(`${c.email}:${c.apiKey}`).toString("base64")}`;

async function load(
  scenario: string,
  opts: { url: string; method?: "GET" | "POST"; headers?: Record<string, string>; body?: string },
): Promise<Result> {
  say(`${scenario}: ${SECONDS}s, ${CONNECTIONS} connections...`);
  const r = await autocannon({
    url: opts.url,
    method: opts.method ?? "GET",
    headers: opts.headers,
    body: opts.body,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  const errors = r.errors + r.timeouts + r.non2xx;
  return { scenario, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors };
}

/** Peak resident memory (VmHWM) of a process, in MiB. */
function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-bench-"));
  const infra = await provisionInfra({ dataDir });
  const port = await freePort();
  const helloPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    NATS_URL: infra.natsUrl,
    MONGO_URL: infra.mongoUrl,
    PORT: String(port),
    EXTERNAL_URL: `http://localhost:${port}`,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    // The limiter still runs (and costs) on every request; the bench only must not hit it.
    RATE_LIMIT_REQUESTS: "100000000",
    // The latency queue is registered before seeding and must outlive it.
    EVENT_QUEUE_IDLE_SECONDS: "7200",
  };
  const procs: ServiceProcess[] = PROCESSES.map((name, i) => spawnService(name, env, i));
  const hello: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench/hello.ts")], {
    env: { ...process.env, PORT: String(helloPort) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await waitForHealth(base, 120_000, procs);
    await new Promise((r) => hello.stdout!.once("data", r));
    say("system up; creating organization, users and channel...");
    const nc = await connect({ servers: infra.natsUrl });
    const org = await createOrganization(nc, {
      subdomain: "",
      name: "Bench",
      ownerEmail: "owner@bench.example",
      ownerName: "Bench Owner",
      ownerPassword: null,
    });
    await nc.close();
    const owner: Credentials = { email: "owner@bench.example", apiKey: org.apiKey };
    const api = new ApiClient(base, owner);
    const users: Array<Credentials & { id: number }> = [];
    for (let i = 1; i < SUBSCRIBERS; i++) {
      const email = `user${i}@bench.example`;
      const made = ok(await api.post("/users", { email, password: `pw-${i}-bench`, full_name: `User ${i}` }));
      const key = ok(
        await new ApiClient(base, null).post("/fetch_api_key", { username: email, password: `pw-${i}-bench` }),
      );
      users.push({ email, apiKey: key.api_key as string, id: made.user_id as number });
    }
    ok(
      await api.post("/channels/create", {
        name: "bench",
        subscribers: [org.userId, ...users.map((u) => u.id)],
      }),
    );
    // The latency receiver is in a small channel of its own, so the seeding fills
    // no queue of theirs; registered before the history exists, because on the
    // embedded database POST /register's history-wide queries slow down as it grows.
    const latencyUser = { email: "latency@bench.example", password: "pw-latency-bench" };
    const latencyId = ok(await api.post("/users", { ...latencyUser, full_name: "Latency" })).user_id as number;
    const latencyKey = ok(
      await new ApiClient(base, null).post("/fetch_api_key", {
        username: latencyUser.email,
        password: latencyUser.password,
      }),
    );
    ok(await api.post("/channels/create", { name: "latency", subscribers: [org.userId, latencyId] }));
    const receiver = new ApiClient(base, { email: latencyUser.email, apiKey: latencyKey.api_key as string });
    const reg = ok(await receiver.post("/register", { event_types: ["message"] }));
    say(`seeding ${HISTORY} messages...`);
    let sent = 0;
    const sender = async () => {
      while (sent < HISTORY) {
        const n = ++sent;
        ok(await api.post("/messages", { type: "stream", to: "bench", topic: `t${n % 20}`, content: `message ${n}` }));
        if (n % 2000 === 0) say(`  ${n}/${HISTORY}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));

    const results: Result[] = [];
    results.push(await load("baseline: Fastify hello-world", { url: `http://127.0.0.1:${helloPort}/hello` }));
    const auth = { authorization: basicAuth(owner) };
    results.push(await load("GET /users/me (authenticated)", { url: `${base}/api/v1/users/me`, headers: auth }));
    results.push(
      await load("POST /messages (channel, 10 subscribers)", {
        url: `${base}/api/v1/messages`,
        method: "POST",
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          type: "stream",
          to: "bench",
          topic: "load",
          content: "hello **world**",
        }).toString(),
      }),
    );
    const narrow = JSON.stringify([{ operator: "channel", operand: "bench" }]);
    const query = new URLSearchParams({ anchor: "newest", num_before: "100", num_after: "0", narrow }).toString();
    results.push(
      await load(`GET /messages (100 of ${HISTORY}+, channel narrow)`, {
        url: `${base}/api/v1/messages?${query}`,
        headers: auth,
      }),
    );

    say(`event delivery: ${EVENT_SAMPLES} sends to a parked long-poll...`);
    let lastEventId = reg.last_event_id as number;
    const samples: number[] = [];
    for (let i = 0; i < EVENT_SAMPLES; i++) {
      const poll = receiver.get("/events", { queue_id: reg.queue_id, last_event_id: lastEventId });
      await new Promise((r) => setTimeout(r, 20)); // let the poll park
      const t0 = performance.now();
      await api.post("/messages", { type: "stream", to: "latency", topic: "latency", content: `ping ${i}` });
      const events = ok(await poll).events as Array<{ id: number; type: string }>;
      samples.push(performance.now() - t0);
      lastEventId = Math.max(lastEventId, ...events.map((e) => e.id));
    }
    samples.sort((a, b) => a - b);
    const eventResult = {
      scenario: "event delivery (send → parked long-poll)",
      p50: pct(samples, 50),
      p99: pct(samples, 99),
      samples: samples.length,
    };

    const memory = [
      { process: "baseline (hello-world)", peakMiB: peakMiB(hello.pid!) },
      ...procs.map((p) => ({ process: p.name, peakMiB: peakMiB(p.child.pid!) })),
      ...infra.servers.map((s) => ({ process: s.name, peakMiB: peakMiB(s.pid) })),
    ];
    report(results, eventResult, memory);
  } finally {
    hello.kill("SIGTERM");
    await stopServices(procs);
    await infra.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(
  results: Result[],
  events: { scenario: string; p50: number; p99: number; samples: number },
  memory: Array<{ process: string; peakMiB: number }>,
) {
  const b = results[0]!;
  const f = (n: number, d = 1) => n.toFixed(d);
  const lines = [
    `# Benchmark (${new Date().toISOString()}, ${SECONDS}s per scenario, ${CONNECTIONS} connections, 2-core machine)`,
    "",
    "| scenario | req/s | p50 ms | p99 ms | errors | req/s vs baseline | p50 vs baseline | p99 vs baseline |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.scenario} | ${f(r.rps, 0)} | ${f(r.p50)} | ${f(r.p99)} | ${r.errors} | ${f(r.rps / b.rps, 3)} | ${f(r.p50 / Math.max(b.p50, 1), 1)}x | ${f(r.p99 / Math.max(b.p99, 1), 1)}x |`,
    ),
    `| ${events.scenario} (${events.samples} samples) | - | ${f(events.p50)} | ${f(events.p99)} | - | - | ${f(events.p50 / Math.max(b.p50, 1), 1)}x | ${f(events.p99 / Math.max(b.p99, 1), 1)}x |`,
    "",
    "| process | peak RSS MiB | vs baseline |",
    "|---|---:|---:|",
    ...memory.map((m) => `| ${m.process} | ${f(m.peakMiB)} | ${f(m.peakMiB / memory[0]!.peakMiB, 2)}x |`),
    "",
  ];
  const md = lines.join("\n");
  process.stdout.write("\n" + md + "\n");
  writeFileSync(join(REPO_ROOT, "bench/results/latest.md"), md);
  writeFileSync(join(REPO_ROOT, "bench/results/latest.json"), JSON.stringify({ results, events, memory }, null, 2));
  say("written to bench/results/latest.md and latest.json");
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
