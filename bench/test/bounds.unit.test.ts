/**
 * The bench's bounds table: each bound judged on every history size's figure,
 * the growth bound only when the run has both 10,000 and 100,000, memory on
 * the services alone (not NATS, the database or the baseline), the cold start
 * on each case's round right after the restart (and the warm round's register),
 * the soak's minutes against its first ones, a send's writes and p99 by its
 * channel's size against 10 subscribers, the realm export's time per 100,000
 * messages and messaging's memory growth during it.
 */
import { checkBounds } from "../bounds";
import type { ChannelSizeFigures, ColdCaseResult, RealmExportResult, Report, SizeResult, SoakMinute } from "../figures";
import type { LoadResult } from "../scenarios";

const loadOf = (scenario: string, rps: number, p50: number, p99: number): LoadResult => ({
  scenario,
  rps,
  p50,
  p99,
  errors: 0,
  timeouts: 0,
  completed: rps * 10,
});

/** A history size whose figures all meet their bounds, with `change` applied. */
function size(n: number, change: (s: SizeResult) => void = () => undefined): SizeResult {
  const s = {
    size: n,
    seedSeconds: 1,
    loads: [
      loadOf(`[h${n}] baseline: Fastify hello-world`, 50_000, 0, 1),
      loadOf(`[h${n}] GET /users/me (authenticated)`, 5_000, 2, 9),
      loadOf(`[h${n}] POST /messages (channel, 10 subscribers)`, 200, 60, 120),
      loadOf(`[h${n}] GET /messages (newest 100, channel narrow)`, 1_000, 12, 40),
      loadOf(`[h${n}] GET /messages (first_unread, is:unread, 5000 unread)`, 300, 40, 100),
      loadOf(`[h${n}] POST /register (50 channels, 5000 unread)`, 160, 95, 180),
    ],
    events: { scenario: "event delivery", p50: 25, p99: 65 },
  } as unknown as SizeResult;
  change(s);
  return s;
}

function report(sizes: SizeResult[], serviceMiB = 150, systemMiB = 700): Report {
  return {
    startedAt: "now",
    runSeconds: 1,
    settings: {},
    sizes,
    memory: {
      processes: [
        { process: "baseline (hello-world)", peakMiB: 500 },
        ...["identity", "realm-config", "messaging", "notifications", "gateway"].map((process) => ({
          process,
          peakMiB: process === "gateway" ? serviceMiB : 150,
        })),
        { process: "nats-server", peakMiB: 300 },
        { process: "secantusdb", peakMiB: 300 },
      ],
      systemPeak: { physical: systemMiB, rssSum: systemMiB },
      systemPeakByPhase: {},
      samples: 1,
    },
    failures: [],
  } as unknown as Report;
}

const failing = (r: Report) => checkBounds(r).filter((c) => !c.holds);

it("holds everywhere when every figure is within its bound (NATS and the database may pass 200 MiB)", () => {
  const checks = checkBounds(report([size(1_000), size(10_000)]));
  expect(checks.map((c) => c.what)).toEqual([
    "GET /users/me req/s",
    "GET /users/me p99",
    "POST /messages req/s",
    "POST /messages p99",
    "GET /messages (channel narrow) req/s",
    "GET /messages (channel narrow) p99",
    "GET /messages (is:unread) p99",
    "POST /register p50",
    "event delivery p50",
    "event delivery p99",
    "each service's peak RSS",
    "whole system's peak (physical)",
  ]);
  expect(failing(report([size(1_000), size(10_000)]))).toEqual([]);
  expect(checks.find((c) => c.what === "GET /users/me req/s")?.figures).toBe("0.1000 (1000), 0.1000 (10000)");
});

it("fails a bound when one history size's figure is past it", () => {
  const r = report([size(1_000), size(10_000, (s) => (s.events.p99 = 71))]);
  expect(failing(r)).toEqual([
    { what: "event delivery p99", limit: "≤ 70 ms", figures: "65.0 (1000), 71.0 (10000)", holds: false },
  ]);
});

it("judges a rate as a ratio to the same size's baseline", () => {
  const r = report([
    size(1_000, (s) => (s.loads[1]!.rps = 3_000)),
    size(10_000, (s) => {
      s.loads[0]!.rps = 30_000;
      s.loads[1]!.rps = 3_000;
    }),
  ]);
  expect(failing(r).map((c) => [c.what, c.figures])).toEqual([
    ["GET /users/me req/s", "0.0600 (1000), 0.1000 (10000)"],
  ]);
});

it("checks the channel page's growth from 10,000 to 100,000 only when both ran", () => {
  const slower = size(100_000, (s) => (s.loads[3]!.p99 = 61));
  expect(checkBounds(report([size(1_000), size(10_000)])).map((c) => c.what)).not.toContain(
    "GET /messages (channel narrow) p99 at 100,000 / at 10,000",
  );
  expect(failing(report([size(10_000), slower]))).toEqual([
    {
      what: "GET /messages (channel narrow) p99 at 100,000 / at 10,000",
      limit: "≤ 1.5",
      figures: "1.52",
      holds: false,
    },
  ]);
});

it("fails memory on one service past 200 MiB, or the whole system past 800 MiB", () => {
  expect(failing(report([size(1_000)], 301)).map((c) => c.what)).toEqual(["each service's peak RSS"]);
  expect(failing(report([size(1_000)], 150, 893)).map((c) => c.what)).toEqual(["whole system's peak (physical)"]);
});

/**
 * A cold-start case whose cold round has these figures; of the warm rounds only the one-at-a-time
 * register p50 is judged (the 50-at-once warm round's figures all miss, and must not count).
 */
function coldCase(
  [members, unread, history]: [number, number, number],
  p99s: [number, number, number],
  allDoneSeconds: number | null = 5,
  errors = 0,
  systemPeakMiB = 700,
  { warmRegisterP50 = 40, seedSeconds = 1 } = {},
): ColdCaseResult {
  const round = (p99: number[], done: number | null, errs: number, name = "") => ({
    round: name,
    steps: p99.map((v, i) => ({
      step: `${i}`,
      p50: v / 2,
      p99: v,
      errors: i === 0 ? errs : 0,
      statuses: {},
      messages: {},
    })),
    completedMembers: members,
    allDoneSeconds: done,
    wrongFirstUnread: 0,
    memory: [],
    systemPeakMiB,
  });
  const warm = round([10_000, 10_000, 10_000], null, members, "warm (right after)");
  const oneAtATime = round([10_000, 10_000, 10_000], null, members, "warm, one at a time");
  oneAtATime.steps[0]!.p50 = warmRegisterP50;
  return {
    members,
    unread,
    history,
    seedSeconds,
    restartSeconds: 1,
    rounds: [round(p99s, allDoneSeconds, errors), warm, oneAtATime],
  };
}

const withCold = (...cases: ColdCaseResult[]): Report => ({ ...report([size(1_000)]), cold: { cases } });

it("judges the cold start on its cold round only, each case, and only when the run has one", () => {
  expect(checkBounds(report([size(1_000)])).some((c) => c.what.startsWith("cold"))).toBe(false);
  const meets = withCold(
    coldCase([20, 10_000, 10_000], [300, 200, 200], 10),
    coldCase([100, 10_000, 10_000], [300, 200, 200]),
  );
  expect(failing(meets)).toEqual([]);
  expect(checkBounds(meets).find((c) => c.what === "cold start errors")?.figures).toBe(
    "0 (20x10000@10000), 0 (100x10000@10000)",
  );
  const misses = withCold(coldCase([20, 10_000, 10_000], [10_012.5, 150, 201], null, 20, 801));
  expect(failing(misses).map((c) => [c.what, c.figures])).toEqual([
    ["cold POST /register p99, up to 10,000 unread", "10012.5 (20x10000@10000)"],
    ["cold GET /messages (channel, newest) p99", "201 (20x10000@10000)"],
    ["cold start: every member done, fewer than 1,000 members", "not all (20x10000@10000)"],
    ["cold start errors", "20 (20x10000@10000)"],
    ["cold start: whole system's peak (all rounds)", "801 (20x10000@10000)"],
  ]);
});

it("bounds cold register by the members' unread: 300 ms up to 10,000 at every size, 1 s up to 50,000", () => {
  const r = withCold(
    coldCase([20, 10_000, 10_000], [350, 100, 100]),
    coldCase([20, 50_000, 50_000], [950, 100, 100]),
    coldCase([100, 10_000, 10_000], [5_000, 100, 100]),
  );
  expect(failing(r).map((c) => [c.what, c.figures])).toEqual([
    ["cold POST /register p99, up to 10,000 unread", "350 (20x10000@10000), 5000 (100x10000@10000)"],
  ]);
});

it("bounds the whole system's peak at 1,000 members against 20, both at 10,000 unread", () => {
  const at = (members: number, peakMiB: number) =>
    coldCase([members, 10_000, 10_000], [100, 100, 100], 5, 0, peakMiB, { seedSeconds: 100, warmRegisterP50: 10 });
  const what = "cold start: whole system's peak at 1,000 × 10,000 unread − at 20 × 10,000";
  expect(failing(withCold(at(20, 600), at(1000, 700))).map((c) => c.what)).not.toContain(what);
  expect(failing(withCold(at(20, 600), at(1000, 701))).map((c) => [c.what, c.figures])).toContainEqual([
    what,
    "101 MiB (600 → 701)",
  ]);
});

it("bounds the large cold start: seeding and every member done at 1,000 × 10,000, the warm register at 10,000 unread", () => {
  const large = (allDoneSeconds: number, seedSeconds: number, warmRegisterP50 = 40) =>
    coldCase([1_000, 10_000, 10_000], [100, 100, 100], allDoneSeconds, 0, 700, { seedSeconds, warmRegisterP50 });
  expect(failing(withCold(large(60, 300)))).toEqual([]);
  expect(failing(withCold(large(61, 301, 51))).map((c) => [c.what, c.figures])).toEqual([
    ["cold start: warm POST /register p50, one member at a time, 10,000 unread", "51 (1000x10000@10000)"],
    ["cold start: every member done, 1,000 members × 10,000 unread", "61 (1000x10000@10000)"],
    ["cold start: seeding 1,000 members × 10,000 unread", "301 (1000x10000@10000)"],
  ]);
  // fewer members keep the 10 s bound; the warm register is judged at 10,000 unread only
  const smaller = withCold(
    coldCase([100, 10_000, 10_000], [100, 100, 100], 11),
    coldCase([20, 50_000, 50_000], [100, 100, 100], 5, 0, 700, { warmRegisterP50: 500 }),
  );
  expect(failing(smaller).map((c) => [c.what, c.figures])).toEqual([
    ["cold start: every member done, fewer than 1,000 members", "11 (100x10000@10000), 5 (20x50000@50000)"],
  ]);
});

it("compares each cold figure at 100,000 messages with the same case at 10,000", () => {
  const r = withCold(coldCase([20, 10_000, 10_000], [100, 100, 100]), coldCase([20, 10_000, 100_000], [150, 151, 90]));
  expect(failing(r).map((c) => [c.what, c.figures])).toEqual([
    ["cold GET /messages (first_unread) p99 at 100,000 messages / at 10,000 (20 × 10000 unread)", "1.51"],
  ]);
});

it("bounds the steady state's whole-system peak", () => {
  const steady = (systemPeakMiB: number) =>
    ({ ...report([size(1_000)]), steady: { members: 100, unread: 10_000, systemPeakMiB } }) as unknown as Report;
  expect(failing(steady(800))).toEqual([]);
  expect(failing(steady(801)).map((c) => c.what)).toEqual(["steady state: whole system's peak (100 × 10000 unread)"]);
});

/** A soak of `n` minutes at 10 actions/s, p99 100 ms and messaging at 100 MiB, changed by `change`. */
function soak(n: number, change: (m: SoakMinute) => void = () => {}): Report {
  const minutes = Array.from({ length: n }, (_, i) => {
    const m = {
      minute: i + 1,
      rps: 10,
      p50: 10,
      p99: 100,
      errors: 0,
      pollErrors: 0,
      messages: 0,
      rssMiB: { messaging: 100 },
    };
    change(m);
    return m;
  });
  return { ...report([size(1_000)]), soak: { minutes } } as unknown as Report;
}

it("judges each soak minute against minutes 1–5, and memory over the last 30 minutes (the last half when shorter)", () => {
  expect(failing(soak(60))).toEqual([]);
  const slower = soak(60, (m) => {
    if (m.minute === 40) [m.rps, m.p99] = [6.6, 151];
  });
  expect(failing(slower).map((c) => [c.what, c.figures])).toEqual([
    ["soak: every minute's actions/s", "lowest 0.66 × (minute 40)"],
    ["soak: every minute's p99", "highest 1.51 × (minute 40)"],
  ]);
  // half a MiB more each minute: 13.0 % from minute 30 to 60, 4.8 % from minute 10 to 20
  const leak = (m: SoakMinute) => (m.rssMiB.messaging = 100 + m.minute / 2);
  expect(failing(soak(60, leak)).map((c) => [c.what, c.figures])).toEqual([
    ["soak: each process's peak RSS growth over the last 30 minutes", "messaging 13.0 %"],
  ]);
  expect(failing(soak(20, leak))).toEqual([]);
  expect(checkBounds(soak(20, leak)).find((c) => c.what.startsWith("soak: each process"))).toMatchObject({
    what: "soak: each process's peak RSS growth over the last 10 minutes (the last half: a soak shorter than 60)",
    figures: "messaging 4.8 %",
  });
  // a garbage collector's saw, low at minute 30 and high at 60, is no growth: each end is a 5-minute peak
  const saw = (m: SoakMinute) => (m.rssMiB.messaging = m.minute === 30 || m.minute % 2 === 1 ? 70 : 105);
  expect(failing(soak(60, saw))).toEqual([]);
});

/** Sends to a channel of `subscribers`: `written` documents per send, p99 `p99` ms. */
const channelSize = (subscribers: number, written: number, p99: number) =>
  ({ subscribers, documentsWrittenPerSend: written, p99 }) as ChannelSizeFigures;
const withChannelSizes = (...sizes: ChannelSizeFigures[]): Report =>
  ({ ...report([size(1_000)]), channelSizes: { senders: 4, seconds: 15, seedSeconds: 1, sizes } }) as Report;

it("judges a send's writes and p99 by its channel's size against the 10-subscriber channel", () => {
  const flat = withChannelSizes(channelSize(10, 4, 100), channelSize(100, 4.36, 120), channelSize(1000, 3.64, 150));
  expect(failing(flat)).toEqual([]);
  const perRecipient = withChannelSizes(
    channelSize(10, 13, 100),
    channelSize(100, 103, 300),
    channelSize(1000, 1003, 151),
  );
  expect(failing(perRecipient).map((c) => [c.what, c.limit, c.figures])).toEqual([
    [
      "channel sizes: messaging's documents written per send / at 10 subscribers",
      "within 10 % (0.9–1.1)",
      "7.92 (100), 77.15 (1000)",
    ],
    ["channel sizes: send p99 at 1,000 subscribers / at 10", "≤ 1.5", "1.51"],
  ]);
  // without the 10-subscriber channel nothing is judged
  expect(checkBounds(withChannelSizes(channelSize(100, 103, 300))).some((c) => c.what.startsWith("channel"))).toBe(
    false,
  );
});

/** A realm export of `history` messages that took `seconds`, messaging's RSS going from 100 MiB to `peakMiB`. */
const withRealmExport = (history: number, seconds: number, peakMiB = 150): Report => ({
  ...report([size(1_000)]),
  realmExport: { history, seconds, rssBeforeMiB: 100, rssPeakMiB: peakMiB } as RealmExportResult,
});

it("bounds the realm export at 60 s per 100,000 messages, and messaging's RSS growth during it at 150 MiB", () => {
  expect(checkBounds(report([size(1_000)])).some((c) => c.what.startsWith("realm export"))).toBe(false);
  const meets = withRealmExport(100_000, 60, 250);
  expect(failing(meets)).toEqual([]);
  expect(checkBounds(meets).filter((c) => c.what.startsWith("realm export"))).toEqual([
    { what: "realm export of 100,000 messages", limit: "≤ 60 s", figures: "60.0 s", holds: true },
    {
      what: "realm export: messaging's RSS growth during it",
      limit: "≤ 150 MiB",
      figures: "150 MiB (100 → 250)",
      holds: true,
    },
  ]);
  expect(failing(withRealmExport(100_000, 60.1, 251)).map((c) => [c.what, c.figures])).toEqual([
    ["realm export of 100,000 messages", "60.1 s"],
    ["realm export: messaging's RSS growth during it", "151 MiB (100 → 251)"],
  ]);
  // another size is judged at the same rate
  expect(failing(withRealmExport(20_000, 12.5)).map((c) => [c.what, c.limit, c.figures])).toEqual([
    ["realm export of 20,000 messages", "≤ 12 s (60 s per 100,000)", "12.5 s"],
  ]);
  expect(failing(withRealmExport(250_000, 150))).toEqual([]);
});
