/** A run's figures, as bench/results/latest.json holds them (report.ts writes them, bounds.ts checks them). */
import type { config } from "./config";
import type { MixedReport } from "./mixed";
import type { EventResult, LoadResult } from "./scenarios";
import type { Resident, SystemMemory } from "./system";

export interface SizeResult {
  size: number;
  seedSeconds: number;
  loads: LoadResult[];
  events: EventResult;
}

export type BenchSettings = typeof config & { machine: string };

export interface Report {
  startedAt: string;
  runSeconds: number;
  settings: BenchSettings;
  sizes: SizeResult[];
  memory: {
    /** `atSystemPeak`: the process's pages at the moment of the system's physical peak (not for the baseline) */
    processes: Array<{ process: string; peakMiB: number; atSystemPeak?: Resident }>;
    systemPeak: SystemMemory;
    systemPeakByPhase: Record<string, SystemMemory>;
    samples: number;
  };
  mixed?: MixedReport;
  /** the cold start (`--cold`) */
  cold?: ColdResult;
  /** steps that could not run, and why */
  failures: string[];
}

/** One step of the members' client start, over all members. */
export interface ColdStep {
  step: string;
  /** latency of every attempt, errors included (no answer: the client's timeout), ms */
  p50: number;
  p99: number;
  errors: number;
  /** the errors by HTTP status ("no answer": a timeout or a refused connection) */
  statuses: Record<string, number>;
  /** each status's first error message (the answer's `msg`), which tells apart where it was raised */
  messages: Record<string, string>;
}

/** A step's errors by status, as the report and the log print them: `19 × 504 ("Service timed out: messaging")`. */
export const errorsByStatus = (s: ColdStep): string =>
  Object.entries(s.statuses)
    .map(([status, n]) => `${n} × ${status}${s.messages[status] ? ` (${JSON.stringify(s.messages[status])})` : ""}`)
    .join(", ");

export interface ColdRound {
  /** "cold (after restart)" or "warm (right after)" */
  round: string;
  steps: ColdStep[];
  /** members whose three steps all succeeded */
  completedMembers: number;
  /** seconds from the start until the last member completed its three steps (null: not all completed) */
  allDoneSeconds: number | null;
  /** first_unread pages that did not start at the channel's first message (every message is unread) */
  wrongFirstUnread: number;
  /** each process's highest RSS sampled during the round, MiB */
  memory: Array<{ process: string; peakMiB: number }>;
}

export interface ColdResult {
  members: number;
  /** unread messages of each member, all in their one channel */
  unread: number;
  seedSeconds: number;
  /** until the restarted services answered /health */
  restartSeconds: number;
  rounds: ColdRound[];
  /** the services' peak RSS before the restart, MiB (the run's memory table takes the higher figure) */
  stoppedPeaks: Record<string, number>;
}
