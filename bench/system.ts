/**
 * The system under test, started as `npm start` does (each service its own process,
 * its own nats-server and database in a throw-away directory, NODE_ENV=production),
 * the hello-world baseline beside it, and a sampler of the whole system's memory.
 */
import { connect } from "@nats-io/transport-node";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, provisionInfra, type Infra } from "../scripts/lib/infra";
import { createOrganization } from "../scripts/lib/organization";
import { PROCESSES, natsServers } from "@teamchat/shared";
import { buildBundles, bundlePath } from "../scripts/lib/build";
import { spawnService, stopServices, waitForHealth, type ServiceProcess } from "../scripts/lib/services";
import { say } from "./config";
import type { Credentials } from "@teamchat/shared/src/testing/api";

export interface System {
  port: number;
  helloPort: number;
  mongoUrl: string;
  natsUrl: string;
  /** search's PostgreSQL (SEARCH_URL), when search is served there */
  searchUrl?: string;
  dbPrefix: string;
  /**
   * every process of the system (services, nats-server, database), for memory figures; a
   * restart replaces the services' entries in place, so a sampler holding the array follows them
   */
  processes: Array<{ name: string; pid: number }>;
  helloPid: number;
  /** each service's metrics listener (`/metrics`, `/health`) on loopback, by name: the same port after a restart */
  metricsUrls: Record<string, string>;
  /** Creates organization `subdomain` and its owner over the bus, as `npm run manage` does. */
  createOrganization(subdomain: string): Promise<{ owner: Credentials & { id: number } }>;
  /**
   * Stops the five services and starts them again on the same data (nats-server and the
   * database keep running), until the gateway answers /health.
   */
  restartServices(): Promise<void>;
  /** Each service's highest peak RSS (VmHWM) over the processes a restart stopped, MiB by name: their successors' VmHWM starts again. */
  stoppedPeaks: Record<string, number>;
  stop(): Promise<void>;
}

export async function startSystem(): Promise<System> {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-bench-"));
  say(`starting nats-server and the database in ${dataDir}...`);
  let infra: Infra;
  try {
    infra = await provisionInfra({ dataDir, progress: say });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(
      `could not start the infrastructure: ${(err as Error).message}\n` +
        "  (set MONGO_URL / NATS_URL to use running servers, or see README.md Quick start)",
    );
  }
  const port = await freePort();
  const helloPort = await freePort();
  const dbPrefix = process.env.MONGO_DB_PREFIX ?? `bench${Date.now()}`;
  const env = {
    ...process.env,
    NATS_URL: infra.natsUrl,
    MONGO_URL: infra.mongoUrl,
    ...(infra.searchUrl && { SEARCH_URL: infra.searchUrl }),
    MONGO_DB_PREFIX: dbPrefix,
    // the mail the development transport writes goes with the rest of the run's data
    TEAMCHAT_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    EXTERNAL_URL: `http://localhost:${port}`,
    NODE_ENV: "production",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    // The limiter still runs (and costs) on every request; the bench only must not hit it.
    RATE_LIMIT_REQUESTS: "100000000",
  };
  // a listener of its own per service, whose database counters tell what a scenario wrote (channel-sizes.ts)
  const metricsPorts = Object.fromEntries(await Promise.all(PROCESSES.map(async (name) => [name, await freePort()])));
  const envOf = (name: string) => ({ ...env, METRICS_PORT: String(metricsPorts[name]), METRICS_HOST: "127.0.0.1" });
  say("building the service bundles...");
  await buildBundles(PROCESSES, { hello: "bench/hello.ts" });
  say("starting the five services (NODE_ENV=production) and the hello-world baseline...");
  const procs: ServiceProcess[] = PROCESSES.map((name, i) => spawnService(name, envOf(name), i));
  const hello: ChildProcess = spawn(process.execPath, [bundlePath("hello")], {
    env: { ...process.env, PORT: String(helloPort) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = async () => {
    hello.kill("SIGTERM");
    await stopServices(procs);
    await infra.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, 120_000, procs);
    await new Promise((r, j) => {
      hello.stdout!.once("data", r);
      hello.once("exit", (code) => j(new Error(`bench/hello.ts exited with code ${code}`)));
    });
  } catch (err) {
    await stop();
    throw new Error(`the system did not start: ${(err as Error).message} (the services' logs are above)`);
  }
  say(`system up: gateway on 127.0.0.1:${port}, baseline on 127.0.0.1:${helloPort}`);
  const stoppedPeaks: Record<string, number> = {};
  const processes = [
    ...procs.map((p) => ({ name: p.name, pid: p.child.pid! })),
    ...infra.servers.map((s) => ({ name: s.name, pid: s.pid })),
  ];
  return {
    port,
    helloPort,
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    searchUrl: infra.searchUrl,
    dbPrefix,
    processes,
    helloPid: hello.pid!,
    metricsUrls: Object.fromEntries(PROCESSES.map((name) => [name, `http://127.0.0.1:${metricsPorts[name]}`])),
    stoppedPeaks,
    async restartServices() {
      for (const p of procs) stoppedPeaks[p.name] = Math.max(stoppedPeaks[p.name] ?? 0, peakMiB(p.child.pid!));
      await stopServices(procs);
      procs.splice(0, procs.length, ...PROCESSES.map((name, i) => spawnService(name, envOf(name), i)));
      procs.forEach((p, i) => (processes[i] = { name: p.name, pid: p.child.pid! }));
      await waitForHealth(`http://127.0.0.1:${port}`, 120_000, procs);
    },
    async createOrganization(subdomain) {
      const nc = await connect({ servers: natsServers(infra.natsUrl) });
      try {
        const email = `owner@${subdomain}.bench.example`;
        const org = await createOrganization(nc, {
          subdomain,
          name: `Bench ${subdomain}`,
          ownerEmail: email,
          ownerName: "Bench Owner",
          ownerPassword: null,
        });
        return { owner: { email, apiKey: org.apiKey, id: org.userId } };
      } finally {
        await nc.close();
      }
    },
    stop,
  };
}

/** Peak resident memory (VmHWM) of a process over its life, in MiB (NaN once the process is gone). */
export function peakMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The machine's CPU time so far, in clock ticks (1/100 s): busy (every state but idle and iowait) and in all. */
function machineTicks(): { busy: number; all: number } {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const ticks = fields.map(Number);
  const all = ticks.reduce((a, b) => a + b, 0);
  // user nice system idle iowait ...
  return { busy: all - ticks[3]! - ticks[4]!, all };
}

/** Busy below this share of the machine, it is idle. */
const IDLE_CPU_SHARE = 0.1;
const IDLE_WINDOW_MS = 1000;

/**
 * Writes dirty pages out (sync), then waits until the whole machine is busy
 * under IDLE_CPU_SHARE for two windows running, at most `maxSeconds`: after
 * seeding, the database and the kernel keep writing for a while, and a scenario
 * measured meanwhile measures that instead (docs/adr/0030-bench-method.md).
 * Returns the seconds waited.
 */
export async function waitForIdle(maxSeconds = 60): Promise<number> {
  const t0 = performance.now();
  spawnSync("sync");
  let quiet = 0;
  let before = machineTicks();
  while (quiet < 2 && performance.now() - t0 < maxSeconds * 1000) {
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
    const now = machineTicks();
    quiet = (now.busy - before.busy) / (now.all - before.all || 1) < IDLE_CPU_SHARE ? quiet + 1 : 0;
    before = now;
  }
  return (performance.now() - t0) / 1000;
}

/** CPU time a process has used so far, user and system, in ms (NaN once it is gone). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // after "(comm)" come the state (field 3) ... utime, stime, then the exited children's cutime and
    // cstime (fields 14-17), in 1/100 s
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const own = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
    return own + childPids(pid).reduce((sum, child) => sum + (cpuMs(child) || 0), 0);
  } catch {
    return NaN;
  }
}

/** A process's live children: a database may fork (PostgreSQL serves each connection in a child process). */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * What each process spends on a scenario: `start()` before the load, then
 * `perRequest(n)` gives each process's CPU ms per request over the `n`
 * requests it answered, so a reader sees which process a request costs most.
 */
export class CpuMeter {
  private before = new Map<string, number>();

  constructor(private readonly processes: ReadonlyArray<{ name: string; pid: number }>) {}

  start(): void {
    this.before = new Map(this.processes.map((p) => [p.name, cpuMs(p.pid)]));
  }

  /** Each process's CPU seconds since start() or the last lap, starting the next lap. */
  lap(): Record<string, number> {
    const now = new Map(this.processes.map((p) => [p.name, cpuMs(p.pid)]));
    const seconds = Object.fromEntries(
      this.processes.map((p) => [p.name, (now.get(p.name)! - this.before.get(p.name)!) / 1000]),
    );
    this.before = now;
    return seconds;
  }

  perRequest(requests: number): Record<string, number> {
    return Object.fromEntries(
      this.processes.map((p) => [p.name, requests > 0 ? (cpuMs(p.pid) - this.before.get(p.name)!) / requests : NaN]),
    );
  }
}

/**
 * A process's resident pages (with its descendants': a database may fork), in
 * MiB: anonymous ones (its heap; shared memory too), and file-backed ones (its
 * program's and libraries' pages, which processes running the same program
 * share); `program` is its executable.
 */
export interface Resident {
  anon: number;
  file: number;
  program: string;
}

/**
 * From /proc/<pid>/status, whose counters cost nothing to read: smaps_rollup
 * would tell shared from private pages exactly, but walks the process's page
 * tables under its memory-map lock, which slowed the scenarios it sampled
 * (docs/adr/0030-bench-method.md).
 * Zero once the process is gone.
 */
function residentMiB(pid: number): Resident {
  const tree = residentTree(pid);
  return { anon: tree.anon + tree.shmem, file: tree.file, program: tree.program };
}

/**
 * A process's pages and its descendants': their own anonymous pages add up;
 * shared memory and a program's file-backed pages are the same pages in each
 * of them (PostgreSQL's children share its buffers and its program), so the
 * largest figure stands for all.
 */
function residentTree(pid: number): Resident & { shmem: number } {
  const r = { anon: 0, shmem: 0, file: 0, program: "" };
  try {
    r.program = readlinkSync(`/proc/${pid}/exe`);
    for (const [, field, kB] of readFileSync(`/proc/${pid}/status`, "utf8").matchAll(
      /^Rss(Anon|File|Shmem):\s+(\d+) kB/gm,
    )) {
      r[field === "File" ? "file" : field === "Shmem" ? "shmem" : "anon"] += Number(kB) / 1024;
    }
    for (const child of childPids(pid)) {
      const c = residentTree(child);
      r.anon += c.anon;
      r.shmem = Math.max(r.shmem, c.shmem);
      r.file = c.program === r.program ? Math.max(r.file, c.file) : r.file + c.file;
    }
  } catch {
    // gone, or no children file: nothing (more) to add
  }
  return r;
}

/** The whole system's memory at one moment, in MiB. */
export interface SystemMemory {
  /**
   * What the processes occupy: their anonymous pages, plus the file-backed
   * pages of each program once (the largest of its processes' figures): the
   * node binary's pages are the same physical pages in every Node service
   * (docs/adr/0030-bench-method.md).
   */
  physical: number;
  /** The sum of their RSS, which counts those pages once per process. */
  rssSum: number;
}

/** The physical figure of `each` (see SystemMemory). */
function physicalMiB(each: Resident[]): number {
  const fileByProgram = new Map<string, number>();
  for (const r of each) fileByProgram.set(r.program, Math.max(fileByProgram.get(r.program) ?? 0, r.file));
  return each.reduce((s, r) => s + r.anon, 0) + [...fileByProgram.values()].reduce((s, v) => s + v, 0);
}

/**
 * Samples the system's memory every 250 ms. `mark(phase)` starts a new phase;
 * `peaks()` gives the maximum over the whole run (and what each process held
 * then) and per phase. The peak is the physical figure's; the summed RSS's
 * peak is given beside it.
 */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  private phase = "start";
  private max: SystemMemory = { physical: 0, rssSum: 0 };
  private readonly perPhase = new Map<string, SystemMemory>();
  /** each process's pages at the sample of the whole system's physical peak, in `processes`' order */
  private atMax: Resident[] = [];
  /** per phase, each process's highest RSS (anonymous + file-backed) sampled, in `processes`' order */
  private readonly perPhaseProcess = new Map<string, number[]>();
  /** each process's highest RSS since the last `takeWindow()`, in `processes`' order */
  private window: number[] = [];
  samples = 0;

  /** `processes` is read at every sample: System.restartServices replaces its entries. */
  constructor(private readonly processes: ReadonlyArray<{ pid: number }>) {}

  start(): this {
    const sample = () => {
      const each = this.processes.map((p) => residentMiB(p.pid));
      const now: SystemMemory = { physical: physicalMiB(each), rssSum: each.reduce((s, r) => s + r.anon + r.file, 0) };
      this.samples++;
      if (now.physical > this.max.physical) this.atMax = each;
      this.max = higher(this.max, now);
      this.perPhase.set(this.phase, higher(this.perPhase.get(this.phase) ?? now, now));
      const before = this.perPhaseProcess.get(this.phase);
      this.perPhaseProcess.set(
        this.phase,
        each.map((r, i) => Math.max(before?.[i] ?? 0, r.anon + r.file)),
      );
      this.window = each.map((r, i) => Math.max(this.window[i] ?? 0, r.anon + r.file));
    };
    sample();
    this.timer = setInterval(sample, 250);
    this.timer.unref();
    return this;
  }

  mark(phase: string): void {
    this.phase = phase;
  }

  /** Each process's highest sampled RSS in MiB since the last call (or the start), in `processes`' order. */
  takeWindow(): number[] {
    const peaks = this.window;
    this.window = [];
    return peaks;
  }

  /** The whole system's peak during `phase` (zero if never sampled). */
  systemPeak(phase: string): SystemMemory {
    return this.perPhase.get(phase) ?? { physical: 0, rssSum: 0 };
  }

  /** Each process's highest sampled RSS in MiB during `phase`, in `processes`' order (empty if never sampled). */
  processPeaks(phase: string): number[] {
    return this.perPhaseProcess.get(phase) ?? [];
  }

  stop(): void {
    clearInterval(this.timer);
  }

  peaks(): {
    max: SystemMemory;
    atMax: Resident[];
    perPhase: Record<string, SystemMemory>;
    perPhaseProcess: Record<string, number[]>;
    samples: number;
  } {
    return {
      max: this.max,
      atMax: this.atMax,
      perPhase: Object.fromEntries(this.perPhase),
      perPhaseProcess: Object.fromEntries(this.perPhaseProcess),
      samples: this.samples,
    };
  }
}

const higher = (a: SystemMemory, b: SystemMemory): SystemMemory => ({
  physical: Math.max(a.physical, b.physical),
  rssSum: Math.max(a.rssSum, b.rssSum),
});
