/**
 * The performance bounds the system must meet (twice the Matrix homeserver Synapse, measured
 * with the same load shape), checked against a run's figures, so that a reader of
 * docs/benchmarks.md sees at once what holds and what does not, and a regression (a leak
 * that doubles a service's memory, say) is flagged in the run that shows it.
 */
import { PROCESSES } from "@teamchat/shared";
import type { ColdResult, Report, SizeResult } from "./figures";

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
    figure: (s) => ratio(s, "POST /messages"),
    holds: (v) => v >= 0.0021,
  },
  { what: "POST /messages p99", limit: "≤ 200 ms", figure: (s) => p99(s, "POST /messages"), holds: (v) => v <= 200 },
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
/** the channel page at 100,000 messages against 10,000 */
const GROWTH = 1.5;

/** The cold start's bounds, on its cold round (the first): Zulip's production register average is 90–300 ms. */
const COLD: Array<{ what: string; limit: string; figure(c: ColdResult): number | null; holds(v: number): boolean }> = [
  { what: "cold POST /register p99", limit: "≤ 300 ms", figure: (c) => coldStep(c, 0).p99, holds: (v) => v <= 300 },
  {
    what: "cold GET /messages (first_unread) p99",
    limit: "≤ 200 ms",
    figure: (c) => coldStep(c, 1).p99,
    holds: (v) => v <= 200,
  },
  {
    what: "cold GET /messages (channel, newest) p99",
    limit: "≤ 200 ms",
    figure: (c) => coldStep(c, 2).p99,
    holds: (v) => v <= 200,
  },
  {
    what: "cold start: every member done",
    limit: "≤ 10 s",
    figure: (c) => c.rounds[0]!.allDoneSeconds,
    holds: (v) => v <= 10,
  },
  {
    what: "cold start errors",
    limit: "0",
    figure: (c) => c.rounds[0]!.steps.reduce((n, s) => n + s.errors, 0),
    holds: (v) => v === 0,
  },
];
const coldStep = (c: ColdResult, i: number) => c.rounds[0]!.steps[i]!;

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
  if (r.cold?.rounds.length) {
    const cold = r.cold;
    for (const b of COLD) {
      const v = b.figure(cold);
      checks.push({
        what: b.what,
        limit: b.limit,
        // null: not every member completed
        figures: `${v === null ? "not all" : Number.isInteger(v) ? v : fmt(v)} (${cold.members} members × ${cold.unread} unread)`,
        holds: v !== null && !Number.isNaN(v) && b.holds(v),
      });
    }
  }
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
