/**
 * `npm run bench`: the system as `npm start` runs it, beside a bare Fastify
 * hello-world measured in the same run; for each history size (BENCH_HISTORY) a
 * fresh organization seeded with that history, then every scenario, each followed by
 * an overload-recovery probe; process and whole-system memory; with `--mixed` /
 * BENCH_MIXED=1 a mixed load of simulated users and the largest user count that
 * keeps latency and errors within limits; with `--cold` / BENCH_COLD=1, last (it restarts
 * the services), the cold start (cold.ts). Writes bench/results/*.json and docs/benchmarks.md
 * (report.ts). Settings: bench/config.ts; what each scenario measures: docs/benchmarks.md.
 */
import { runCold } from "./cold";
import { config, say } from "./config";
import { runMixed, type MixedReport } from "./mixed";
import { setUpOrg } from "./org";
import type { ColdResult, SizeResult } from "./figures";
import { writeReport } from "./report";
import { runScenarios } from "./scenarios";
import { SchemaDrift } from "./seed";
import { CpuMeter, MemorySampler, peakMiB, startSystem, waitForIdle } from "./system";

async function main() {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  say(
    `history ${config.history.join(", ") || "none"}; ${config.seconds} s per scenario, ${config.connections} connections` +
      (config.mixed ? `; mixed load: ${config.mixedUsers} users, ${config.mixedSeconds} s per step` : "") +
      (config.cold ? `; cold start: ${config.coldMembers} members × ${config.coldUnread} unread` : ""),
  );
  const sys = await startSystem();
  const memory = new MemorySampler(sys.processes).start();
  try {
    const sizes: SizeResult[] = [];
    const orgs = new Map<number, Awaited<ReturnType<typeof setUpOrg>>>();
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
    let mixed: MixedReport | undefined;
    if (config.mixed) {
      memory.mark("mixed load");
      let org = orgs.get(config.mixedHistory);
      if (!org) {
        say(`BENCH_MIXED_HISTORY=${config.mixedHistory} is not one of BENCH_HISTORY: seeding an organization for it`);
        org = await setUpOrg(sys, config.mixedHistory);
      }
      try {
        mixed = await runMixed(org);
      } catch (err) {
        failures.push(`mixed load: ${(err as Error).message}`);
        say(`mixed load FAILED: ${(err as Error).message}`);
      }
    }
    let cold: ColdResult | undefined;
    if (config.cold) {
      try {
        cold = await runCold(sys, memory);
      } catch (err) {
        failures.push(`cold start: ${(err as Error).message}`);
        say(`cold start FAILED: ${(err as Error).message}`);
      }
    }
    memory.stop();
    const peaks = memory.peaks();
    // a restarted service's VmHWM starts again from its restart
    const peakOf = (p: { name: string; pid: number }) => Math.max(peakMiB(p.pid), cold?.stoppedPeaks[p.name] ?? 0);
    await writeReport({
      startedAt,
      runSeconds: (performance.now() - t0) / 1000,
      settings: { ...config, machine: "2 cores, shared with other jobs" },
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
        samples: peaks.samples,
      },
      mixed,
      cold,
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
