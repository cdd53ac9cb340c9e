/**
 * `npm run bench`: the system as `npm start` runs it, beside a bare Fastify
 * hello-world measured in the same run; for each history size (BENCH_HISTORY) a
 * fresh organization seeded with that history, then every scenario, each followed by
 * an overload-recovery probe; process and whole-system memory; with `--mixed` /
 * BENCH_MIXED=1 a mixed load of simulated users and the largest user count that
 * keeps latency and errors within limits; with `--channel-sizes` / BENCH_CHANNEL_SIZES sends
 * to channels of 10, 100 and 1,000 subscribers (channel-sizes.ts); with `--soak MINUTES` the
 * mixed load for as long (soak.ts); with `--export` / BENCH_EXPORT the realm export of a large
 * organization (realm-export.ts); with `--steady` the steady state (steady.ts); with `--cold` /
 * BENCH_COLD=1, last (it restarts the services), the cold start (cold.ts). Writes
 * bench/results/*.json and docs/benchmarks.md (report.ts). Settings: bench/config.ts; what each
 * scenario measures: docs/benchmarks.md.
 */
import { runChannelSizes } from "./channel-sizes";
import { runCold } from "./cold";
import { config, say } from "./config";
import { caseLabel, type ChannelSizesResult, type SizeResult, type SoakResult } from "./figures";
import { runMixed, type MixedReport } from "./mixed";
import { setUpOrg, type Org } from "./org";
import { runRealmExport } from "./realm-export";
import { recordedMixedLargestN, writeReport } from "./report";
import { load, runScenarios } from "./scenarios";
import { SchemaDrift } from "./seed";
import { runSoak } from "./soak";
import { runSteady } from "./steady";
import { CpuMeter, MemorySampler, peakMiB, startSystem, waitForIdle } from "./system";

async function main() {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  say(
    `history ${config.history.join(", ") || "none"}; ${config.seconds} s per scenario, ${config.connections} connections` +
      (config.mixed ? `; mixed load: ${config.mixedUsers} users, ${config.mixedSeconds} s per step` : "") +
      (config.channelSizes.length ? `; channel sizes: ${config.channelSizes.join(", ")}` : "") +
      (config.cold ? `; cold start: ${config.coldCases.map(caseLabel).join(", ")}` : "") +
      (config.steady ? `; steady state: ${config.steadyMembers} × ${config.steadyUnread} unread` : "") +
      (config.soakMinutes ? `; soak: ${config.soakMinutes} min` : "") +
      (config.realmExport ? `; realm export: ${config.realmExport} messages` : ""),
  );
  const sys = await startSystem();
  const memory = new MemorySampler(sys.processes).start();
  try {
    const helloRps = await machineSpeed(sys.helloPort);
    const sizes: SizeResult[] = [];
    const orgs = new Map<number, Org>();
    const failures: string[] = [];
    for (const size of config.history) {
      memory.mark(`seeding ${size}`);
      const s0 = performance.now();
      try {
        const org = await setUpOrg(sys, size);
        orgs.set(size, org);
        const seedSeconds = (performance.now() - s0) / 1000;
        say(`[h${size}] waiting for the system to go idle after seeding...`);
        const waited = await waitForIdle();
        say(`[h${size}] idle after ${waited.toFixed(1)} s${waited >= 60 ? " (gave up waiting: still busy)" : ""}`);
        memory.mark(`scenarios at ${size}`);
        const { loads, events } = await runScenarios(org, sys.port, sys.helloPort, new CpuMeter(sys.processes));
        sizes.push({ size, seedSeconds, loads, events });
      } catch (err) {
        if (err instanceof SchemaDrift) throw err;
        // the figures so far are still written
        failures.push(`history ${size}: ${(err as Error).message}`);
        say(`history ${size} FAILED, going on: ${(err as Error).message}`);
      }
    }
    /** the mixed load's and the soak's organization */
    const mixedOrg = async () => {
      const org = orgs.get(config.mixedHistory);
      if (org) return org;
      say(`BENCH_MIXED_HISTORY=${config.mixedHistory} is not one of BENCH_HISTORY: seeding an organization for it`);
      orgs.set(config.mixedHistory, await setUpOrg(sys, config.mixedHistory));
      return orgs.get(config.mixedHistory)!;
    };
    /** Runs one more scenario; when it fails, the run goes on and its report says so. */
    const attempt = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await run();
      } catch (err) {
        if (err instanceof SchemaDrift) throw err;
        failures.push(`${what}: ${(err as Error).message}`);
        say(`${what} FAILED: ${(err as Error).message}`);
        return undefined;
      }
    };
    let channelSizes: ChannelSizesResult | undefined;
    if (config.channelSizes.length) {
      channelSizes = await attempt("channel sizes", () => runChannelSizes(sys, memory));
    }
    let mixed: MixedReport | undefined;
    if (config.mixed) {
      memory.mark("mixed load");
      mixed = await attempt("mixed load", async () => runMixed(await mixedOrg()));
    }
    let soak: SoakResult | undefined;
    if (config.soakMinutes) {
      memory.mark("soak");
      const { users, from } = soakUsers(mixed);
      soak = await attempt("soak", async () => runSoak(sys, memory, await mixedOrg(), users, from));
    }
    // last, as they seed large organizations (and the cold start restarts the services)
    const realmExport = config.realmExport
      ? await attempt("realm export", () => runRealmExport(sys, memory))
      : undefined;
    const steady = config.steady ? await attempt("steady state", () => runSteady(sys, memory)) : undefined;
    const cold = config.cold ? await attempt("cold start", () => runCold(sys, memory)) : undefined;
    memory.stop();
    const peaks = memory.peaks();
    // a restarted service's VmHWM starts again from its restart
    const peakOf = (p: { name: string; pid: number }) => Math.max(peakMiB(p.pid), sys.stoppedPeaks[p.name] ?? 0);
    await writeReport({
      startedAt,
      runSeconds: (performance.now() - t0) / 1000,
      settings: {
        ...config,
        machine: `2 cores, shared with other jobs; a bare Fastify hello-world answered ${Math.round(helloRps)} req/s at the start`,
        helloRps,
      },
      sizes,
      memory: {
        processes: [
          { process: "baseline (hello-world)", peakMiB: peakMiB(sys.helloPid) },
          ...sys.processes.map((p, i) => ({
            process: p.name,
            peakMiB: peakOf(p),
            atSystemPeak: peaks.atMax[i],
          })),
        ],
        systemPeak: peaks.max,
        systemPeakByPhase: peaks.perPhase,
        processPeaksByPhase: peaks.perPhaseProcess,
        samples: peaks.samples,
      },
      mixed,
      cold,
      steady,
      soak,
      channelSizes,
      realmExport,
      failures,
    });
    say(
      `done in ${((performance.now() - t0) / 60_000).toFixed(1)} min${failures.length ? `; FAILED: ${failures.join("; ")}` : ""}`,
    );
  } finally {
    memory.stop();
    say("stopping the system...");
    await sys.stop();
  }
}

/** Seconds of the hello-world load that measures the machine at the start of every run. */
const MACHINE_SECONDS = 5;

/**
 * The bare hello-world's throughput on the idle machine, before anything else: the same code has
 * answered 14,000 to 75,000 req/s on hosts of the same kind, and every figure in ms moves with it, so
 * each run records the machine it had (a soak or a cold start alone runs no other baseline).
 */
async function machineSpeed(helloPort: number): Promise<number> {
  await waitForIdle();
  const r = await load("the machine: Fastify hello-world", {
    port: helloPort,
    path: "/hello",
    seconds: MACHINE_SECONDS,
  });
  return r.rps;
}

/**
 * The soak runs at about half the peak throughput: half the largest user count the mixed load held, in
 * this run or the recorded one (its users' rate is fixed, so throughput goes with their number).
 */
function soakUsers(mixed: MixedReport | undefined): { users: number; from: string } {
  if (config.soakUsers) return { users: config.soakUsers, from: "BENCH_SOAK_USERS" };
  if (mixed?.largestN) return { users: mixed.largestN / 2, from: "half the mixed load's largest N in this run" };
  const recorded = recordedMixedLargestN();
  if (recorded) return { users: recorded / 2, from: "half the largest N of bench/results/mixed-load.json" };
  return { users: config.mixedUsers, from: "BENCH_USERS: no mixed load recorded" };
}

main().catch((err: unknown) => {
  const e = err as Error;
  process.stderr.write(`[bench] failed: ${e.stack ?? e}\n`);
  if (e instanceof SchemaDrift) {
    process.stderr.write(
      "[bench] what to do: bring bench/seed.ts in line with messaging's schema files, then rerun.\n",
    );
  } else {
    process.stderr.write(
      "[bench] what to do: read the services' log lines above for the cause; rerun with a smaller BENCH_HISTORY " +
        "or BENCH_SECONDS to narrow it down.\n",
    );
  }
  process.exit(1);
});
