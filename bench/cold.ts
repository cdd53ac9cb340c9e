/**
 * The cold start: organizations whose members each have many unread messages in their one
 * channel (BENCH_COLD_CASES, all seeded first), then for each: the services restarted on the same
 * data, every member opening a client (POST /register, the first_unread page, the channel's
 * newest page), BENCH_COLD_CLIENTS of them at a time, measured cold, once more warm right after, and
 * warm once more one member at a time: a client's latency with no others queued on the same cores.
 */
import { config, say } from "./config";
import {
  caseLabel,
  COLD_STEPS,
  errorsByStatus,
  type ColdCaseResult,
  type ColdResult,
  type ColdRound,
  type ColdStep,
} from "./figures";
import { pct, pool, type Http, type Reply } from "./http";
import type { User } from "./org";
import { reportUndeleted } from "./scenarios";
import { seedTeam } from "./team";
import { CpuMeter, MemorySampler, waitForIdle, type System } from "./system";

/** A client's patience: long enough that the server's own answer (a 504 after its timeout, say) is seen. */
const CLIENT_TIMEOUT_MS = 60_000;
/** Before the warm round, at most: the cold round's work (a load its clients no longer wait for) may still be running. */
const WARM_PAUSE_SECONDS = 30;
/** Members the one-at-a-time round takes (the first of the case's): enough for a p50 and a p99. */
const ONE_AT_A_TIME_MEMBERS = 100;
/** Each case's rounds, in order: how many members start at once, and how many go through. */
const ROUNDS = [
  { round: "cold (after restart)", atOnce: () => config.coldClients, members: Infinity },
  { round: "warm (right after)", atOnce: () => config.coldClients, members: Infinity },
  { round: "warm, one at a time", atOnce: () => 1, members: ONE_AT_A_TIME_MEMBERS },
];

/** Seeds every case's organization, then per case restarts the services and runs the clients' start cold and warm. */
export async function runCold(sys: System, memory: MemorySampler): Promise<ColdResult> {
  say(`cold start: ${config.coldCases.map(caseLabel).join(", ")} (members x unread @ history)`);
  memory.mark("cold start: seeding");
  const teams = [];
  for (const c of config.coldCases) {
    teams.push({ c, team: await seedTeam(sys, `cold-${caseLabel(c).replace("@", "-h")}`, c) });
  }
  const cases: ColdCaseResult[] = [];
  for (const { c, team } of teams) {
    const label = caseLabel(c);
    say(`[${label}] waiting for the system to go idle (after the seeding, or the last case)...`);
    await waitForIdle();
    say(`[${label}] restarting the services (nats-server and the database keep running)...`);
    const r0 = performance.now();
    await sys.restartServices();
    const restartSeconds = (performance.now() - r0) / 1000;
    say(`[${label}] services answer /health ${restartSeconds.toFixed(1)} s after the restart began`);
    const rounds: ColdRound[] = [];
    for (const { round, atOnce, members } of ROUNDS) {
      if (rounds.length) await waitForIdle(WARM_PAUSE_SECONDS);
      const phase = `cold start ${label}: ${round}`;
      memory.mark(phase);
      const cpu = new CpuMeter(sys.processes);
      cpu.start();
      const own = process.cpuUsage();
      const users = team.members.slice(0, members);
      const r = await clientsStart(team.org.as, team.narrow, users, team.firstUnreadId, round, atOnce());
      // the bench's own client (it parses every answer) shares the cores: counted beside the services
      // (from this process alone: the services are its children, which CpuMeter would add to it)
      const { user, system } = process.cpuUsage(own);
      r.cpuMsPerMember = {
        ...cpu.perRequest(users.length),
        "bench client": (user + system) / 1000 / users.length,
      };
      say(
        `    CPU ms per member: ${Object.entries(r.cpuMsPerMember)
          .map(([p, ms]) => `${p} ${ms.toFixed(1)}`)
          .join(", ")}`,
      );
      const peaks = memory.processPeaks(phase);
      r.memory = sys.processes.map((p, i) => ({ process: p.name, peakMiB: peaks[i] ?? NaN }));
      r.systemPeakMiB = memory.systemPeak(phase).physical;
      say(`    whole system's peak: ${r.systemPeakMiB.toFixed(0)} MiB`);
      rounds.push(r);
    }
    cases.push({ ...c, seedSeconds: team.seedSeconds, seedBulkSeconds: team.bulkSeconds, restartSeconds, rounds });
  }
  memory.mark("after the cold start");
  return { clients: config.coldClients, cases };
}

/**
 * Every member: register, the first_unread page, the channel's newest page, each step after the
 * last; `atOnce` members at a time, the next starting as soon as one is done, so that
 * a case of 1,000 members measures the server working through them rather than 1,000
 * connections opened in one instant (a case of fewer members starts them all at once).
 */
async function clientsStart(
  as: (u: User) => Http,
  narrow: unknown[],
  users: User[],
  firstUnreadId: number,
  round: string,
  most: number,
): Promise<ColdRound> {
  const atOnce = Math.min(users.length, most);
  say(`  ${round}: ${users.length} members, ${atOnce === users.length ? "all" : atOnce} at once...`);
  const replies: Reply[][] = COLD_STEPS.map(() => []);
  const queues: Array<() => Promise<Reply>> = [];
  let wrongFirstUnread = 0;
  const t0 = performance.now();
  const finished = await pool(users, atOnce, async (u) => {
    const http = as(u);
    const steps = [
      () => http.post("/register", { queue_lifespan_secs: 60 }, CLIENT_TIMEOUT_MS),
      () => http.get("/messages", { anchor: "first_unread", num_before: 0, num_after: 100, narrow }, CLIENT_TIMEOUT_MS),
      () => http.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow }, CLIENT_TIMEOUT_MS),
    ];
    let failed = false;
    for (const [i, step] of steps.entries()) {
      const r = await step();
      replies[i]!.push(r);
      if (r.status !== 200) failed = true;
      if (i === 0 && r.status === 200) queues.push(() => http.delete("/events", { queue_id: r.body.queue_id }, 10_000));
      // the page starts at the first message the member has not read
      if (i === 1 && r.status === 200 && (r.body.messages as Array<{ id: number }>)[0]?.id !== firstUnreadId) {
        wrongFirstUnread++;
      }
    }
    return failed ? null : performance.now() - t0;
  });
  const done = finished.filter((ms): ms is number => ms !== null);
  const steps: ColdStep[] = COLD_STEPS.map((step, i) => {
    const ms = replies[i]!.map((r) => r.ms).sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    const messages: Record<string, string> = {};
    for (const r of replies[i]!.filter((r) => r.status !== 200)) {
      const status = r.status ? String(r.status) : "no answer";
      statuses[status] = (statuses[status] ?? 0) + 1;
      messages[status] ??= String(r.body.msg ?? "").slice(0, 100);
    }
    return {
      step,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
      errors: replies[i]!.filter((r) => r.status !== 200).length,
      statuses,
      messages,
    };
  });
  const result: ColdRound = {
    round,
    steps,
    completedMembers: done.length,
    allDoneSeconds: done.length === users.length ? Math.max(...done) / 1000 : null,
    wrongFirstUnread,
    memory: [],
    systemPeakMiB: NaN,
  };
  for (const s of steps) {
    say(
      `    ${s.step}: p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, ${s.errors} errors` +
        (s.errors ? ` (${errorsByStatus(s)})` : ""),
    );
  }
  say(
    `    ${done.length} of ${users.length} members completed all three steps` +
      (result.allDoneSeconds !== null ? `, the last after ${result.allDoneSeconds.toFixed(2)} s` : "") +
      (wrongFirstUnread
        ? `; WARNING: ${wrongFirstUnread} first_unread pages did not start at the first unread message`
        : ""),
  );
  reportUndeleted(await Promise.all(queues.map((q) => q())));
  return result;
}
