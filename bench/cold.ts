/**
 * The cold start: an organization whose members each have many unread messages in their one
 * channel, the services restarted on the same data, then every member opening a client at
 * once (POST /register, the first_unread page, the channel's newest page); measured cold,
 * then once more warm right after.
 */
import { config, say } from "./config";
import { errorsByStatus, type ColdResult, type ColdRound, type ColdStep } from "./figures";
import { ok, pct, type Http, type Reply } from "./http";
import { openOrg, type User } from "./org";
import { reportUndeleted } from "./scenarios";
import { bulkSeed } from "./seed";
import { MemorySampler, waitForIdle, type System } from "./system";

const SUBDOMAIN = "cold";
const CHANNEL = "team";
/** A client's patience: long enough that the server's own answer (a 504 after its timeout, say) is seen. */
const CLIENT_TIMEOUT_MS = 60_000;

const COLD_STEPS = ["POST /register", "GET /messages (first_unread)", "GET /messages (channel, newest)"] as const;

/** Seeds the organization, restarts the services, and runs the clients' start cold and then warm. */
export async function runCold(sys: System, memory: MemorySampler): Promise<ColdResult> {
  const { coldMembers: members, coldUnread: unread } = config;
  const tag = `[${SUBDOMAIN}]`;
  say(`${tag} cold start: ${members} members, ${unread} unread each in channel ${CHANNEL}...`);
  memory.mark("cold start: seeding");
  const s0 = performance.now();
  const org = await openOrg(sys, SUBDOMAIN);
  const users = await org.createUsers("member", members);
  await org.createChannel(CHANNEL, [org.owner.creds.id, ...users.map((u) => u.id)]);
  // The owner sends them all: the first through the API (the template of the bulk path), the rest in bulk.
  const content = (n: number) => `unread ${n}`;
  const topic = (n: number) => `topic ${n % 20}`;
  const templateId = ok(
    "POST /messages (the cold channel's first message)",
    await org.owner.post("/messages", { type: "stream", to: CHANNEL, topic: topic(1), content: content(1) }),
  ).id as number;
  if (unread > 1) {
    await bulkSeed({
      mongoUrl: sys.mongoUrl,
      dbName: `${sys.dbPrefix}_messaging`,
      templateMessageId: templateId,
      count: unread - 1,
      content: (i) => content(i + 1),
      topic: (i) => topic(i + 1),
      // as the send path stores them: read for their sender, unread for every other subscriber
      flags: (userId) => (userId === org.owner.creds.id ? ["read"] : []),
      progress: say,
    });
  }
  // every message of the channel is unread to the members, the channel's creation notice too
  const narrow = [{ operator: "channel", operand: CHANNEL }];
  const oldest = ok(
    "GET /messages (the cold channel's oldest message)",
    await org.owner.get("/messages", { anchor: "oldest", num_before: 0, num_after: 1, narrow }),
  ).messages as Array<{ id: number }>;
  const firstUnreadId = oldest[0]!.id;
  const seedSeconds = (performance.now() - s0) / 1000;
  say(`${tag} seeded in ${seedSeconds.toFixed(0)} s; waiting for the system to go idle...`);
  await waitForIdle();

  say(`${tag} restarting the services (nats-server and the database keep running)...`);
  const r0 = performance.now();
  const stoppedPeaks = await sys.restartServices();
  const restartSeconds = (performance.now() - r0) / 1000;
  say(`${tag} services answer /health ${restartSeconds.toFixed(1)} s after the restart began`);

  const rounds: ColdRound[] = [];
  for (const round of ["cold (after restart)", "warm (right after)"]) {
    const phase = `cold start: ${round}`;
    memory.mark(phase);
    const r = await clientsStart(org.as, narrow, users, firstUnreadId, round);
    const peaks = memory.processPeaks(phase);
    r.memory = sys.processes.map((p, i) => ({ process: p.name, peakMiB: peaks[i] ?? NaN }));
    rounds.push(r);
  }
  memory.mark("after the cold start");
  return { members, unread, seedSeconds, restartSeconds, rounds, stoppedPeaks };
}

/** Every member at once: register, the first_unread page, the channel's newest page, each step after the last. */
async function clientsStart(
  as: (u: User) => Http,
  narrow: unknown[],
  users: User[],
  firstUnreadId: number,
  round: string,
): Promise<ColdRound> {
  say(`  ${round}: ${users.length} members at once...`);
  const replies: Reply[][] = COLD_STEPS.map(() => []);
  const queues: Array<() => Promise<Reply>> = [];
  let wrongFirstUnread = 0;
  const t0 = performance.now();
  const finished = await Promise.all(
    users.map(async (u) => {
      const http = as(u);
      const steps = [
        () => http.post("/register", { queue_lifespan_secs: 60 }, CLIENT_TIMEOUT_MS),
        () =>
          http.get("/messages", { anchor: "first_unread", num_before: 0, num_after: 100, narrow }, CLIENT_TIMEOUT_MS),
        () => http.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow }, CLIENT_TIMEOUT_MS),
      ];
      let failed = false;
      for (const [i, step] of steps.entries()) {
        const r = await step();
        replies[i]!.push(r);
        if (r.status !== 200) failed = true;
        if (i === 0 && r.status === 200)
          queues.push(() => http.delete("/events", { queue_id: r.body.queue_id }, 10_000));
        // nothing of the channel is read: the page starts at its first message
        if (i === 1 && r.status === 200 && (r.body.messages as Array<{ id: number }>)[0]?.id !== firstUnreadId) {
          wrongFirstUnread++;
        }
      }
      return failed ? null : performance.now() - t0;
    }),
  );
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
