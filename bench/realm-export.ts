/**
 * `npx tsx bench/realm-export.ts`: the realm export of a large organization, on its own (not
 * part of `npm run bench`'s run, which it would lengthen by minutes): the system as `npm start`
 * runs it, one organization whose channel holds BENCH_EXPORT_HISTORY messages (100,000 by
 * default, seeded as bench/team.ts does), a full export through POST /export/realm, polled
 * until GET /export/realm says it is done. Figures: wall time from the request to the
 * finished tarball, messaging's resident memory before and at its peak during the export
 * (sampled every 100 ms), and the tarball's size; each against its bound.
 */
import { readFileSync } from "node:fs";
import { ok, sleep } from "./http";
import { say } from "./config";
import { startSystem } from "./system";
import { seedTeam } from "./team";

const HISTORY = Number(process.env.BENCH_EXPORT_HISTORY ?? 100_000);
const MEMBERS = 2;
/** The bounds: memory that does not grow with the history, and a time linear in it. */
const BOUNDS = {
  /** messaging's peak RSS during the export, above its RSS before it */
  rssGrowthMiB: 150,
  /** per 100,000 messages */
  secondsPer100k: 300,
};

/** Resident memory of a process, in MiB; the run stops when the process is gone (a crash: its log is above). */
const rssMiB = (pid: number): number => {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    throw new Error(`process ${pid} exited during the export`);
  }
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
};

async function main() {
  const sys = await startSystem();
  try {
    const team = await seedTeam(sys, "export", { members: MEMBERS, unread: 0, history: HISTORY });
    const owner = team.org.owner;
    ok("PATCH /settings", await owner.call("PATCH", "/settings", { allow_private_data_export: true }, 30_000));
    const messaging = sys.processes.find((p) => p.name === "messaging")!;
    await sleep(2000);
    const before = rssMiB(messaging.pid);
    let peak = before;
    let gone: Error | undefined;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssMiB(messaging.pid));
      } catch (err) {
        gone = err as Error;
      }
    }, 100);
    const t0 = performance.now();
    const { id } = ok("POST /export/realm", await owner.post("/export/realm", { export_type: 2 })) as { id: number };
    let row: { pending: boolean; export_url: string | null } | undefined;
    for (;;) {
      const { exports } = ok("GET /export/realm", await owner.get("/export/realm", {})) as {
        exports: Array<{ id: number; pending: boolean; export_url: string | null }>;
      };
      row = exports.find((e) => e.id === id);
      if (row && !row.pending) break;
      if (gone) throw gone;
      await sleep(250);
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    if (!row.export_url) throw new Error("the export failed: read messaging's log above");
    const growth = peak - before;
    const secondsBound = (BOUNDS.secondsPer100k * HISTORY) / 100_000;
    say(`realm export of ${HISTORY} messages (${MEMBERS + 1} receivers each): ${seconds.toFixed(1)} s`);
    say(
      `  messaging RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB at its peak (+${growth.toFixed(0)} MiB)`,
    );
    say(`  bound: time ≤ ${secondsBound} s: ${seconds <= secondsBound ? "holds" : "FAILS"}`);
    say(`  bound: RSS growth ≤ ${BOUNDS.rssGrowthMiB} MiB: ${growth <= BOUNDS.rssGrowthMiB ? "holds" : "FAILS"}`);
  } finally {
    await sys.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] realm export failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
