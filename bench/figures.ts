/** A run's figures, as bench/results/latest.json holds them (report.ts writes them, bounds.ts checks them). */
import type { ColdCase, config, SoakShape } from "./config";
import type { MixedReport, MixedResult } from "./mixed";
import type { EventResult, LoadResult } from "./scenarios";
import type { Resident, SystemMemory } from "./system";

export interface SizeResult {
  size: number;
  seedSeconds: number;
  loads: LoadResult[];
  events: EventResult;
}

/** `helloRps`: the bare hello-world's req/s at the run's start (runs recorded before it have none). */
export type BenchSettings = typeof config & { machine: string; helloRps?: number };

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
    /** per phase, each process's highest RSS sampled, in `processes`' order without the baseline (runs since 2026-12-01) */
    processPeaksByPhase?: Record<string, number[]>;
    samples: number;
  };
  mixed?: MixedReport;
  /** the cold start (`--cold`) */
  cold?: ColdResult;
  steady?: SteadyResult;
  soak?: SoakResult;
  /** sends by channel size (`--channel-sizes`, BENCH_CHANNEL_SIZES) */
  channelSizes?: ChannelSizesResult;
  /** the realm export (`--export`, BENCH_EXPORT) */
  realmExport?: RealmExportResult;
  /** steps that could not run, and why */
  failures: string[];
}

/** What each member of the cold start does, each step after the last. */
export const COLD_STEPS = [
  "POST /register",
  "GET /messages (first_unread)",
  "GET /messages (channel, newest)",
] as const;

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
  /** "cold (after restart)", "warm (right after)" or "warm, one at a time" */
  round: string;
  steps: ColdStep[];
  /** members whose three steps all succeeded */
  completedMembers: number;
  /** seconds from the start until the last member completed its three steps (null: not all completed) */
  allDoneSeconds: number | null;
  /** first_unread pages that did not start at the members' first unread message */
  wrongFirstUnread: number;
  /** each process's highest RSS sampled during the round, MiB */
  memory: Array<{ process: string; peakMiB: number }>;
  /** the whole system's physical peak during the round, MiB */
  systemPeakMiB: number;
  /** each process's CPU ms per member over the round (the bench's own client as "bench client"); absent in older runs */
  cpuMsPerMember?: Record<string, number>;
}

/** One organization of the cold start (config.ts' ColdCase) and its rounds. */
export interface ColdCaseResult extends ColdCase {
  seedSeconds: number;
  /** of which writing the history in bulk (bench/seed.ts); the rest is the members and their channel, through the API */
  seedBulkSeconds?: number;
  /** until the restarted services answered /health */
  restartSeconds: number;
  rounds: ColdRound[];
}

export interface ColdResult {
  /** members opening a client at the same time (BENCH_COLD_CLIENTS); absent: all of them */
  clients?: number;
  cases: ColdCaseResult[];
}

/** `20x10000@100000`: as BENCH_COLD_CASES spells a case. */
export const caseLabel = (c: ColdCase): string => `${c.members}x${c.unread}@${c.history}`;

/** Latency of one kind of request over a load, every attempt (errors included), ms. */
export interface RequestFigures {
  kind: string;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

/** The steady state (`--steady`). */
export interface SteadyResult {
  members: number;
  unread: number;
  seedSeconds: number;
  seededRows: number;
  /** minutes seeding 1,000 members × 10,000 unread would take at this run's seeding speed */
  fullSizeSeedMinutes: number;
  seconds: number;
  clients: number;
  sendsPerSecond: number;
  /** members who registered, read their first_unread page and marked it read */
  visits: number;
  requests: RequestFigures[];
  memory: Array<{ process: string; peakMiB: number }>;
  systemPeakMiB: number;
}

/** One minute of the soak. */
export interface SoakMinute {
  minute: number;
  /** actions answered per second (long-polls not included) */
  rps: number;
  p50: number;
  p99: number;
  /** per action (send, history, presence, markRead): successful answers and their latency; absent in older results */
  byAction?: Record<string, { n: number; p50: number; p99: number }>;
  errors: number;
  /** the errors by action and status (`{"markRead 429": 3}`); absent in older results */
  errorsBy?: Record<string, number>;
  pollErrors: number;
  /** messages stored in the whole system at the minute's end */
  messages: number;
  /** each process's highest RSS sampled during the minute, MiB by name */
  rssMiB: Record<string, number>;
  /** each process's CPU seconds during the minute, by name (where a slow minute's time went); absent in older results */
  cpuSeconds?: Record<string, number>;
}

/** The soak (`--soak MINUTES`). */
export interface SoakResult {
  users: number;
  /** where the user count came from */
  usersFrom: string;
  /** history of the organization it ran in, when it started */
  history: number;
  /** BENCH_SOAK_SHAPE and BENCH_SOAK_CPU_HOG (absent in older results: the mixed shape, no hog) */
  shape?: SoakShape;
  cpuHog?: boolean;
  minutes: SoakMinute[];
  total: MixedResult;
}

/** Sends to a channel of one size. */
export interface ChannelSizeFigures {
  subscribers: number;
  /** successful sends during the measurement, and the others */
  sends: number;
  errors: number;
  seconds: number;
  sendsPerSecond: number;
  /** latency of every send, errors included, ms */
  p50: number;
  p99: number;
  /** messaging's database work per successful send, the work that goes on after its reply included */
  commandsPerSend: number;
  statementsPerSend: number;
  documentsWrittenPerSend: number;
  /** of which per collection, most first */
  documentsWrittenByCollection: Record<string, number>;
  documentsReturnedPerSend: number;
  /** every service's documents written per send (notifications' and the others' besides messaging's) */
  allServicesDocumentsWrittenPerSend: number;
  /** each process's CPU ms per send */
  cpuMsPerSend: Record<string, number>;
  systemPeakMiB: number;
}

export interface ChannelSizesResult {
  senders: number;
  /** per size */
  seconds: number;
  /** creating the members and the channels */
  seedSeconds: number;
  /** smallest first */
  sizes: ChannelSizeFigures[];
}

/** The realm export of one organization, as an owner asks for it and downloads it. */
export interface RealmExportResult {
  /** messages of the organization's one channel, sent by its owner */
  history: number;
  /** the channel's members besides the owner: each message has members + 1 receivers */
  members: number;
  seedSeconds: number;
  /** from POST /export/realm until GET /export/realm said it was done */
  seconds: number;
  /** in the tarball: messages, their UserMessage rows (zerver_usermessage), its compressed size */
  messages: number;
  userMessages: number;
  tarballMiB: number;
  /** messaging's RSS right before the export, and its highest sampled every 100 ms until done */
  rssBeforeMiB: number;
  rssPeakMiB: number;
  /** messaging's database work meanwhile, from its own counters (`teamchat_db_*`) */
  dbCommands: number;
  documentsReturned: number;
  /** each process's CPU seconds meanwhile (user + system) */
  cpuSeconds: Record<string, number>;
  /** the whole system's physical peak meanwhile */
  systemPeakMiB: number;
}
