/**
 * The performance bounds the system must meet (twice the Matrix homeserver Synapse, measured
 * with the same load shape), checked against a run's figures, so that a reader of
 * docs/benchmarks.md sees at once what holds and what does not, and a regression (a leak
 * that doubles a service's memory, say) is flagged in the run that shows it.
 */
import { PROCESSES } from "@teamchat/shared";
import type { ColdCase } from "./config";
import {
  caseLabel,
  COLD_STEPS,
  type ChannelSizesResult,
  type ColdCaseResult,
  type RealmExportResult,
  type Report,
  type SizeResult,
  type SoakMinute,
  type SoakResult,
} from "./figures";

interface Bound {
  /** what is bounded, as the report names it */
  what: string;
  /** the bound, in words */
  limit: string;
  /** the run's figure for one history size (undefined when the run has no such figure) */
  figure(s: SizeResult): number | undefined;
  holds(v: number): boolean;
}

/** A scenario's name without its history size's `[h<size>]` tag. */
export const scenarioName = (scenario: string) => scenario.replace(/^\[[^\]]+\] /, "");
/** The load scenario whose name starts with `prefix`. */
const load = (s: SizeResult, prefix: string) => s.loads.find((l) => scenarioName(l.scenario).startsWith(prefix));
const ratio = (s: SizeResult, prefix: string) => {
  const l = load(s, prefix);
  return l && l.rps / s.loads[0]!.rps;
};
const p99 = (s: SizeResult, prefix: string) => load(s, prefix)?.p99;
/** Sending where every recipient is emailed against the same sends notifying nobody, measured back to back. */
const notifiedToQuiet = (s: SizeResult, figure: (l: SizeResult["loads"][number]) => number) => {
  const quiet = load(s, "POST /messages (channel");
  const notified = load(s, "POST /messages, ");
  return quiet && notified && figure(notified) / figure(quiet);
};

const PER_SIZE: Bound[] = [
  {
    what: "GET /users/me req/s",
    limit: "≥ 0.07 × baseline",
    figure: (s) => ratio(s, "GET /users/me"),
    holds: (v) => v >= 0.07,
  },
  { what: "GET /users/me p99", limit: "≤ 10 ms", figure: (s) => p99(s, "GET /users/me"), holds: (v) => v <= 10 },
  {
    what: "POST /messages req/s",
    limit: "≥ 0.0021 × baseline",
    figure: (s) => ratio(s, "POST /messages (channel"),
    holds: (v) => v >= 0.0021,
  },
  {
    what: "POST /messages p99",
    limit: "≤ 200 ms",
    figure: (s) => p99(s, "POST /messages (channel"),
    holds: (v) => v <= 200,
  },
  {
    what: "POST /messages req/s, every recipient emailed",
    limit: "≥ 0.9 × nobody notified",
    figure: (s) => notifiedToQuiet(s, (l) => l.rps),
    holds: (v) => v >= 0.9,
  },
  {
    what: "POST /messages p99, every recipient emailed",
    limit: "≤ 1.2 × nobody notified",
    figure: (s) => notifiedToQuiet(s, (l) => l.p99),
    holds: (v) => v <= 1.2,
  },
  {
    what: "GET /messages (channel narrow) req/s",
    limit: "≥ 0.003 × baseline",
    figure: (s) => ratio(s, "GET /messages (newest 100"),
    holds: (v) => v >= 0.003,
  },
  {
    what: "GET /messages (channel narrow) p99",
    limit: "≤ 130 ms",
    figure: (s) => p99(s, "GET /messages (newest 100"),
    holds: (v) => v <= 130,
  },
  {
    what: "GET /messages (is:unread) p99",
    limit: "≤ 130 ms",
    figure: (s) => p99(s, "GET /messages (first_unread"),
    holds: (v) => v <= 130,
  },
  {
    what: "GET /messages (search, rare word) p99",
    limit: "≤ 200 ms",
    figure: (s) => p99(s, "GET /messages (search, rare word"),
    holds: (v) => v <= 200,
  },
  {
    what: "GET /messages (search, common word's newest page) p99",
    limit: "≤ 200 ms",
    figure: (s) => p99(s, "GET /messages (search, common word"),
    holds: (v) => v <= 200,
  },
  {
    what: "GET /messages (has:link, one match in the history) p99",
    limit: "≤ 200 ms",
    figure: (s) => p99(s, "GET /messages (has:link"),
    holds: (v) => v <= 200,
  },
  {
    what: "POST /register p50",
    limit: "≤ 100 ms",
    figure: (s) => load(s, "POST /register")?.p50,
    holds: (v) => v <= 100,
  },
  { what: "event delivery p50", limit: "≤ 30 ms", figure: (s) => s.events.p50, holds: (v) => v <= 30 },
  { what: "event delivery p99", limit: "≤ 70 ms", figure: (s) => s.events.p99, holds: (v) => v <= 70 },
];

const SERVICE_PEAK_MIB = 200;
const SYSTEM_PEAK_MIB = 800;
/** a figure at 100,000 messages against 10,000; a soak's minute against its first minutes; a send at 1,000 subscribers against 10 */
const GROWTH = 1.5;

/**
 * The cold start's bounds, each on the cases it names, judged on their cold round (the first) unless
 * they say otherwise: Zulip's production register average is 90–300 ms.
 */
const COLD: Array<{
  what: string;
  limit: string;
  applies(c: ColdCase): boolean;
  figure(c: ColdCaseResult): number | null;
  holds(v: number): boolean;
}> = [
  {
    // at every size, BENCH_COLD_CLIENTS at a time: 1,000 members queue on the same cores as 20 do
    what: "cold POST /register p99, up to 10,000 unread",
    limit: "≤ 300 ms",
    applies: (c) => c.unread <= 10_000,
    figure: (c) => coldStep(c, 0).p99,
    holds: (v) => v <= 300,
  },
  {
    what: "cold POST /register p99, up to 20 members × 50,000 unread",
    limit: "≤ 1 s",
    applies: (c) => c.members <= 20 && c.unread > 10_000 && c.unread <= 50_000,
    figure: (c) => coldStep(c, 0).p99,
    holds: (v) => v <= 1000,
  },
  ...COLD_STEPS.slice(1).map((page, i) => ({
    what: `cold ${page} p99`,
    limit: "≤ 200 ms",
    applies: () => true,
    figure: (c: ColdCaseResult) => coldStep(c, i + 1).p99,
    holds: (v: number) => v <= 200,
  })),
  {
    // a client's latency, not the queue of 50 at once on two cores (the warm round shows that)
    what: "cold start: warm POST /register p50, one member at a time, 10,000 unread",
    limit: "≤ 50 ms",
    applies: (c) => c.unread === 10_000,
    figure: (c) => c.rounds.find((r) => r.round === "warm, one at a time")?.steps[0]?.p50 ?? null,
    holds: (v) => v <= 50,
  },
  {
    what: "cold start: every member done, fewer than 1,000 members",
    limit: "≤ 10 s",
    applies: (c) => c.members < 1000,
    figure: (c) => c.rounds[0]!.allDoneSeconds,
    holds: (v) => v <= 10,
  },
  {
    what: "cold start: every member done, 1,000 members × 10,000 unread",
    limit: "≤ 60 s",
    applies: (c) => c.members >= 1000 && c.unread === 10_000,
    figure: (c) => c.rounds[0]!.allDoneSeconds,
    holds: (v) => v <= 60,
  },
  {
    what: "cold start: seeding 1,000 members × 10,000 unread",
    limit: "≤ 300 s",
    applies: (c) => c.members === 1000 && c.unread === 10_000 && c.history === 10_000,
    figure: (c) => c.seedSeconds,
    holds: (v) => v <= 300,
  },
  {
    what: "cold start errors",
    limit: "0",
    applies: () => true,
    figure: (c) => c.rounds[0]!.steps.reduce((n, s) => n + s.errors, 0),
    holds: (v) => v === 0,
  },
  {
    what: "cold start: whole system's peak (all rounds)",
    limit: `≤ ${SYSTEM_PEAK_MIB} MiB`,
    applies: () => true,
    figure: (c) => systemPeak(c),
    holds: (v) => v <= SYSTEM_PEAK_MIB,
  },
];
const coldStep = (c: ColdCaseResult, i: number) => c.rounds[0]!.steps[i]!;
/** A case's whole-system peak over all its rounds. */
const systemPeak = (c: ColdCaseResult) => Math.max(...c.rounds.map((r) => r.systemPeakMiB));
/** 980 more members may cost the whole system this much more at its peak, whatever their unread */
const COLD_MEMBERS_PEAK_MIB = 100;

/**
 * Sends by channel size, against the 10-subscriber channel of the same run: what a send writes must
 * not grow with its channel's subscribers (each within CHANNEL_SIZE_WRITES of it), nor its p99 much.
 */
const CHANNEL_SIZE_BASE = 10;
const CHANNEL_SIZE_WRITES = 0.1;
const CHANNEL_SIZE_P99_AT = 1000;

function channelSizeChecks(c: ChannelSizesResult): BoundCheck[] {
  const base = c.sizes.find((s) => s.subscribers === CHANNEL_SIZE_BASE);
  if (!base) return [];
  const checks: BoundCheck[] = [];
  const larger = c.sizes.filter((s) => s.subscribers > CHANNEL_SIZE_BASE);
  const writes = larger.map((s) => [s.subscribers, s.documentsWrittenPerSend / base.documentsWrittenPerSend] as const);
  if (writes.length) {
    checks.push({
      what: `channel sizes: messaging's documents written per send / at ${CHANNEL_SIZE_BASE} subscribers`,
      limit: `within ${CHANNEL_SIZE_WRITES * 100} % (${1 - CHANNEL_SIZE_WRITES}–${1 + CHANNEL_SIZE_WRITES})`,
      figures: writes.map(([n, r]) => `${r.toFixed(2)} (${n})`).join(", "),
      holds: writes.every(([, r]) => Math.abs(r - 1) <= CHANNEL_SIZE_WRITES),
    });
  }
  const at = c.sizes.find((s) => s.subscribers === CHANNEL_SIZE_P99_AT);
  if (at) {
    const ratio = at.p99 / base.p99;
    checks.push({
      what: `channel sizes: send p99 at ${CHANNEL_SIZE_P99_AT.toLocaleString("en")} subscribers / at ${CHANNEL_SIZE_BASE}`,
      limit: `≤ ${GROWTH}`,
      figures: ratio.toFixed(2),
      holds: ratio <= GROWTH,
    });
  }
  return checks;
}

/**
 * The realm export: a time linear in the history (60 s per 100,000 messages, the size it is stated
 * for; a smaller history's fixed costs weigh more), and messaging's memory not growing with it.
 */
const EXPORT_SECONDS_PER_100K = 60;
const EXPORT_RSS_GROWTH_MIB = 150;

function realmExportChecks(e: RealmExportResult): BoundCheck[] {
  const seconds = (EXPORT_SECONDS_PER_100K * e.history) / 100_000;
  const growth = e.rssPeakMiB - e.rssBeforeMiB;
  return [
    {
      what: `realm export of ${e.history.toLocaleString("en")} messages`,
      limit: `≤ ${Number(seconds.toFixed(1))} s${e.history === 100_000 ? "" : ` (${EXPORT_SECONDS_PER_100K} s per 100,000)`}`,
      figures: `${e.seconds.toFixed(1)} s`,
      holds: e.seconds <= seconds,
    },
    {
      what: "realm export: messaging's RSS growth during it",
      limit: `≤ ${EXPORT_RSS_GROWTH_MIB} MiB`,
      figures: `${growth.toFixed(0)} MiB (${e.rssBeforeMiB.toFixed(0)} → ${e.rssPeakMiB.toFixed(0)})`,
      holds: growth <= EXPORT_RSS_GROWTH_MIB,
    },
  ];
}

/** The soak's limits besides GROWTH: each minute is compared with its first minutes; memory stays flat. */
const SOAK_START_MINUTES = 5;
const SOAK_MEMORY_GROWTH = 0.1;

/** The soak's first minutes (fewer when it is shorter), which every minute is compared with. */
export function soakStart(s: SoakResult): { minutes: number; rps: number; p99: number } {
  const first = s.minutes.slice(0, SOAK_START_MINUTES);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  return { minutes: first.length, rps: mean(first.map((m) => m.rps)), p99: mean(first.map((m) => m.p99)) };
}

/** Each process's RSS at a point of a soak: its highest in the SOAK_PEAK_MINUTES up to that minute. */
const SOAK_PEAK_MINUTES = 5;

/**
 * The minutes memory growth is judged over: the last 30, or the last half of a soak shorter than 60
 * minutes. Each end is a process's highest RSS in the 5 minutes up to it, not one minute's: a
 * garbage-collected process (nats-server under its GOMEMLIMIT) saws between ~70 and ~105 MiB over a
 * few minutes, so single minutes measured the saw, not growth.
 */
export function soakGrowthSpan(s: SoakResult): {
  from: SoakMinute;
  to: SoakMinute;
  minutes: number;
  growth: Array<{ process: string; growth: number }>;
} {
  const n = s.minutes.length;
  const minutes = n >= 60 ? 30 : Math.floor(n / 2);
  const fromAt = Math.max(0, n - 1 - minutes);
  const peakUpTo = (i: number, p: string) =>
    Math.max(...s.minutes.slice(Math.max(0, i + 1 - SOAK_PEAK_MINUTES), i + 1).map((m) => m.rssMiB[p] ?? NaN));
  const growth = Object.keys(s.minutes[n - 1]!.rssMiB).map((p) => ({
    process: p,
    growth: peakUpTo(n - 1, p) / peakUpTo(fromAt, p) - 1,
  }));
  return { from: s.minutes[fromAt]!, to: s.minutes[n - 1]!, minutes, growth };
}

function soakChecks(s: SoakResult): BoundCheck[] {
  const start = soakStart(s);
  const startName = start.minutes === 1 ? "minute 1's" : `minutes 1–${start.minutes}'s`;
  const ratios = (ratio: (m: SoakMinute) => number) => s.minutes.map((m) => ({ ratio: ratio(m), minute: m.minute }));
  const slowest = ratios((m) => m.rps / start.rps).reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const highest = ratios((m) => m.p99 / start.p99).reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const actions = Object.keys(s.minutes[0]?.byAction ?? {});
  const actionStart = (action: string) => {
    const first = s.minutes.slice(0, start.minutes).map((m) => m.byAction?.[action]?.p99 ?? NaN);
    return first.reduce((a, b) => a + b, 0) / first.length;
  };
  const highestByAction = actions.map((action) => {
    const base = actionStart(action);
    return {
      action,
      ...ratios((m) => (m.byAction?.[action]?.p99 ?? NaN) / base)
        .filter((r) => Number.isFinite(r.ratio))
        .reduce((a, b) => (b.ratio > a.ratio ? b : a), { ratio: 0, minute: 0 }),
    };
  });
  const span = soakGrowthSpan(s);
  const { growth } = span;
  return [
    {
      what: "soak: every minute's actions/s",
      limit: `≥ ${startName} / ${GROWTH}`,
      figures: `lowest ${slowest.ratio.toFixed(2)} × (minute ${slowest.minute})`,
      holds: slowest.ratio >= 1 / GROWTH,
    },
    {
      what: "soak: every minute's p99",
      limit: `≤ ${GROWTH} × ${startName}`,
      figures: `highest ${highest.ratio.toFixed(2)} × (minute ${highest.minute})`,
      holds: highest.ratio <= GROWTH,
    },
    ...(actions.length
      ? [
          {
            what: "soak: every minute's p99 per action",
            limit: `≤ ${GROWTH} × ${startName} of the same action`,
            figures: highestByAction.map((a) => `${a.action} ${a.ratio.toFixed(2)} × (minute ${a.minute})`).join(", "),
            holds: highestByAction.every((a) => a.ratio <= GROWTH),
          },
        ]
      : []),
    {
      what: `soak: each process's peak RSS growth over the last ${span.minutes} minute${span.minutes === 1 ? "" : "s"}${s.minutes.length < 60 ? " (the last half: a soak shorter than 60)" : ""}`,
      limit: `≤ ${SOAK_MEMORY_GROWTH * 100} %`,
      figures: growth.map((g) => `${g.process} ${(g.growth * 100).toFixed(1)} %`).join(", "),
      holds: growth.every((g) => g.growth <= SOAK_MEMORY_GROWTH),
    },
  ];
}

export interface BoundCheck {
  what: string;
  limit: string;
  /** the figure, formatted, per history size or for the whole run */
  figures: string;
  holds: boolean;
}

const fmt = (v: number) => (v < 1 ? v.toFixed(4) : v.toFixed(1));

/** Each bound with the run's figures; a bound the run has no figure for is left out. */
export function checkBounds(r: Report): BoundCheck[] {
  const checks: BoundCheck[] = [];
  for (const b of PER_SIZE) {
    const values = r.sizes
      .map((s) => [s.size, b.figure(s)] as const)
      .filter((e): e is [number, number] => e[1] !== undefined);
    if (values.length === 0) continue;
    checks.push({
      what: b.what,
      limit: b.limit,
      figures: values.map(([size, v]) => `${fmt(v)} (${size})`).join(", "),
      holds: values.every(([, v]) => b.holds(v)),
    });
  }
  const [h10k, h100k] = [10_000, 100_000].map((n) => r.sizes.find((s) => s.size === n));
  if (h10k && h100k) {
    const page = (s: SizeResult) => p99(s, "GET /messages (newest 100") ?? NaN;
    const growth = page(h100k) / page(h10k);
    checks.push({
      what: "GET /messages (channel narrow) p99 at 100,000 / at 10,000",
      limit: `≤ ${GROWTH}`,
      figures: growth.toFixed(2),
      holds: growth <= GROWTH,
    });
  }
  const cases = r.cold?.cases ?? [];
  for (const b of COLD) {
    const values = cases.filter(b.applies).map((c) => [caseLabel(c), b.figure(c)] as const);
    if (values.length === 0) continue;
    checks.push({
      what: b.what,
      limit: b.limit,
      // null: not every member completed
      figures: values
        .map(([label, v]) => `${v === null ? "not all" : Number.isInteger(v) ? v : fmt(v)} (${label})`)
        .join(", "),
      holds: values.every(([, v]) => v !== null && !Number.isNaN(v) && b.holds(v)),
    });
  }
  // memory per member must not grow with unread: the largest team's peak against the smallest's
  const small = cases.find((c) => c.members === 20 && c.unread === 10_000 && c.history === 10_000);
  const big = cases.find((c) => c.members === 1000 && c.unread === 10_000 && c.history === 10_000);
  if (small && big) {
    checks.push({
      what: "cold start: whole system's peak at 1,000 × 10,000 unread − at 20 × 10,000",
      limit: `≤ ${COLD_MEMBERS_PEAK_MIB} MiB`,
      figures: `${(systemPeak(big) - systemPeak(small)).toFixed(0)} MiB (${systemPeak(small).toFixed(0)} → ${systemPeak(big).toFixed(0)})`,
      holds: systemPeak(big) - systemPeak(small) <= COLD_MEMBERS_PEAK_MIB,
    });
  }
  // each figure of a case at 100,000 messages against the same members and unread at 10,000
  for (const large of cases.filter((c) => c.history === 100_000)) {
    const base = cases.find((c) => c.history === 10_000 && c.members === large.members && c.unread === large.unread);
    if (!base) continue;
    COLD_STEPS.forEach((step, i) => {
      const growth = coldStep(large, i).p99 / coldStep(base, i).p99;
      checks.push({
        what: `cold ${step} p99 at 100,000 messages / at 10,000 (${large.members} × ${large.unread} unread)`,
        limit: `≤ ${GROWTH}`,
        figures: growth.toFixed(2),
        holds: growth <= GROWTH,
      });
    });
  }
  if (r.steady) {
    checks.push({
      what: `steady state: whole system's peak (${r.steady.members} × ${r.steady.unread} unread)`,
      limit: `≤ ${SYSTEM_PEAK_MIB} MiB`,
      figures: `${r.steady.systemPeakMiB.toFixed(0)} MiB`,
      holds: r.steady.systemPeakMiB <= SYSTEM_PEAK_MIB,
    });
  }
  if (r.soak?.minutes.length) checks.push(...soakChecks(r.soak));
  if (r.channelSizes) checks.push(...channelSizeChecks(r.channelSizes));
  if (r.realmExport) checks.push(...realmExportChecks(r.realmExport));
  const services = r.memory.processes.filter((p) => (PROCESSES as readonly string[]).includes(p.process));
  checks.push({
    what: "each service's peak RSS",
    limit: `≤ ${SERVICE_PEAK_MIB} MiB`,
    figures: services.map((p) => `${p.process} ${p.peakMiB.toFixed(0)}`).join(", "),
    holds: services.every((p) => p.peakMiB <= SERVICE_PEAK_MIB),
  });
  checks.push({
    what: "whole system's peak (physical)",
    limit: `≤ ${SYSTEM_PEAK_MIB} MiB`,
    figures: `${r.memory.systemPeak.physical.toFixed(0)} MiB`,
    holds: r.memory.systemPeak.physical <= SYSTEM_PEAK_MIB,
  });
  return checks;
}
