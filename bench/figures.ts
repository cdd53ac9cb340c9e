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
  /** steps that could not run, and why */
  failures: string[];
}
