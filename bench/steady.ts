/**
 * The steady state: more members with many unread messages than any instance keeps in memory,
 * each opening a client in turn (POST /register, their first_unread page, marking that page
 * read, as Zulip's web client does when it shows it), the next member of a rotation through
 * all of them, so that none was recently active; meanwhile other members send to the channel.
 */
import { config, say } from "./config";
import type { RequestFigures, SteadyResult } from "./figures";
import { pct, sleep, type Reply } from "./http";
import { reportUndeleted } from "./scenarios";
import { MemorySampler, waitForIdle, type System } from "./system";
import { seedTeam } from "./team";

const CLIENT_TIMEOUT_MS = 60_000;
/** Sends in flight, at most: when the server is behind, a send is skipped rather than piled up. */
const MAX_SENDS_IN_FLIGHT = 20;
/** 1,000 members × 10,000 unread: how long seeding it takes here is reported beside a smaller run. */
const [FULL_SIZE_MEMBERS, FULL_SIZE_UNREAD] = [1000, 10_000];
/** what seeding it writes in bulk: the messages and one read state per member (team.ts) */
const FULL_SIZE_ROWS = FULL_SIZE_UNREAD + FULL_SIZE_MEMBERS;

export async function runSteady(sys: System, memory: MemorySampler): Promise<SteadyResult> {
  const { steadyMembers: members, steadyUnread: unread, steadySeconds: seconds } = config;
  const { steadyClients: clients, steadySendsPerSecond: sendsPerSecond } = config;
  say(`steady state: ${members} members × ${unread} unread (${members * unread} in all)`);
  memory.mark("steady state: seeding");
  const team = await seedTeam(sys, "steady", { members, unread, history: unread });
  // the bulk writing's speed, and the setup (its users, mostly) per member
  const rowsPerSecond = team.seededRows / team.bulkSeconds;
  const setupPerMember = (team.seedSeconds - team.bulkSeconds) / members;
  const fullSizeSeedMinutes = (FULL_SIZE_ROWS / rowsPerSecond + FULL_SIZE_MEMBERS * setupPerMember) / 60;
  say(
    `[steady] ${team.seededRows} documents at ${rowsPerSecond.toFixed(0)} documents/s` +
      (members < FULL_SIZE_MEMBERS || unread < FULL_SIZE_UNREAD
        ? `; 1,000 members × 10,000 unread would take ~${fullSizeSeedMinutes.toFixed(0)} min to seed here ` +
          "(BENCH_STEADY_MEMBERS=1000)"
        : ""),
  );
  await waitForIdle();

  const phase = "steady state";
  memory.mark(phase);
  say(`[steady] ${clients} clients at a time through the rotation, ${sendsPerSecond} sends/s, for ${seconds} s...`);
  const replies = new Map<string, Reply[]>();
  const record = (kind: string, r: Reply) => {
    (replies.get(kind) ?? replies.set(kind, []).get(kind)!).push(r);
    return r;
  };
  const end = performance.now() + seconds * 1000;
  let next = 0;
  let visits = 0;
  const undeleted: Reply[] = [];
  const client = async () => {
    while (performance.now() < end) {
      const user = team.members[next++ % members]!;
      const http = team.org.as(user);
      const reg = record(
        "POST /register",
        await http.post("/register", { queue_lifespan_secs: 60 }, CLIENT_TIMEOUT_MS),
      );
      if (reg.status !== 200) continue;
      const page = record(
        "GET /messages (first_unread)",
        await http.get(
          "/messages",
          { anchor: "first_unread", num_before: 0, num_after: 100, narrow: team.narrow },
          CLIENT_TIMEOUT_MS,
        ),
      );
      if (page.status === 200) {
        const ids = (page.body.messages as Array<{ id: number }>).map((m) => m.id);
        const read = { messages: ids, op: "add", flag: "read" };
        const marked = record("POST /messages/flags (the page read)", await http.post("/messages/flags", read));
        if (marked.status === 200) visits++;
      }
      undeleted.push(await http.delete("/events", { queue_id: reg.body.queue_id }, 10_000));
    }
  };
  let sendsInFlight = 0;
  let sent = 0;
  const sender = setInterval(() => {
    if (sendsInFlight >= MAX_SENDS_IN_FLIGHT) return;
    sendsInFlight++;
    // a member away from the rotation's current stretch: the others send while these open their clients
    const from = team.members[(next + Math.floor(members / 2)) % members]!;
    const send = { type: "stream", to: "team", topic: `topic ${sent++ % 20}`, content: "status update" };
    void team.org
      .as(from)
      .post("/messages", send, CLIENT_TIMEOUT_MS)
      .then((r) => record("POST /messages", r))
      .finally(() => sendsInFlight--);
  }, 1000 / sendsPerSecond);
  const ticker = setInterval(
    () => say(`  ${Math.ceil((end - performance.now()) / 1000)} s left, ${visits} members through`),
    10_000,
  );
  await Promise.all(Array.from({ length: clients }, client));
  clearInterval(sender);
  clearInterval(ticker);
  while (sendsInFlight > 0) await sleep(100);
  reportUndeleted(undeleted);

  const requests: RequestFigures[] = [...replies].map(([kind, rs]) => {
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    return {
      kind,
      requests: rs.length,
      errors: rs.filter((r) => r.status !== 200).length,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
    };
  });
  const peaks = memory.processPeaks(phase);
  const systemPeakMiB = memory.systemPeak(phase).physical;
  for (const r of requests) {
    say(`    ${r.kind}: ${r.requests}, p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, ${r.errors} errors`);
  }
  say(
    `    ${visits} members through (${(visits / members).toFixed(2)} times round the rotation); ` +
      `whole system's peak ${systemPeakMiB.toFixed(0)} MiB`,
  );
  memory.mark("after the steady state");
  return {
    members,
    unread,
    seedSeconds: team.seedSeconds,
    seededRows: team.seededRows,
    fullSizeSeedMinutes,
    seconds,
    clients,
    sendsPerSecond,
    visits,
    requests,
    memory: sys.processes.map((p, i) => ({ process: p.name, peakMiB: peaks[i] ?? NaN })),
    systemPeakMiB,
  };
}
