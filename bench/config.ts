/**
 * The benchmark's settings, from the environment (and `--mixed`, `--cold`, `--steady`, `--soak MINUTES`,
 * `--channel-sizes`, `--export [MESSAGES]`); docs/benchmarks.md describes them.
 */

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return n;
};

const cold = process.argv.includes("--cold") || process.env.BENCH_COLD === "1";

/** One cold-start organization: `members` in one channel of `history` messages, the newest `unread` of them unread. */
export interface ColdCase {
  members: number;
  unread: number;
  history: number;
}

/** The cold start's default cases: 10,000 and 50,000 unread, 100 members, and the 1k / 10k / 100k histories. */
const COLD_CASES = "20x10000@10000,20x50000@50000,100x10000@10000,20x1000@1000,20x10000@100000";

/** `MEMBERSxUNREAD@HISTORY,...` (`@HISTORY` may be left out: the history is the unread messages). */
function coldCases(raw: string): ColdCase[] {
  return raw.split(",").map((item) => {
    const m = /^\s*(\d+)x(\d+)(?:@(\d+))?\s*$/.exec(item.replace(/_/g, ""));
    const [members, unread, history] = [m?.[1], m?.[2], m?.[3] ?? m?.[2]].map(Number);
    if (!m || !members || !unread || history! < unread!) {
      throw new Error(
        `BENCH_COLD_CASES: "${item}": expected MEMBERSxUNREAD@HISTORY with HISTORY ≥ UNREAD, e.g. 20x10000@100000`,
      );
    }
    return { members: members!, unread: unread!, history: history! };
  });
}

const steady = process.argv.includes("--steady") || process.env.BENCH_STEADY === "1";

/** `--soak MINUTES` or BENCH_SOAK_MINUTES (0: no soak). */
function soakMinutes(): number {
  const at = process.argv.indexOf("--soak");
  const raw = at >= 0 ? process.argv[at + 1] : process.env.BENCH_SOAK_MINUTES;
  if (raw === undefined || raw === "" || raw === "0") return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--soak ${raw}: expected a whole number of minutes`);
  return n;
}

/** What the soak's users do: the mixed load's actions, or with `@**all**` in every message and reads marked by narrow. */
export type SoakShape = "mixed" | "wildcard";

function soakShape(): SoakShape {
  const raw = process.env.BENCH_SOAK_SHAPE ?? "mixed";
  if (raw !== "mixed" && raw !== "wildcard") throw new Error(`BENCH_SOAK_SHAPE=${raw}: expected mixed or wildcard`);
  return raw;
}

/** How a soak's title tells its shape and CPU hog from the default (empty for the mixed shape, no hog). */
export const soakVariant = (shape: SoakShape, cpuHog: boolean): string =>
  (shape === "wildcard" ? ", @**all** in every message, reads marked by narrow" : "") +
  (cpuHog ? ", one core kept busy" : "");

/** The realm export's history when `--export` gives none: the size its bound is stated for. */
const EXPORT_HISTORY = 100_000;

/** `--export [MESSAGES]` or BENCH_EXPORT=MESSAGES: the realm export of an organization of that history (0: none). */
function realmExportHistory(): number {
  const at = process.argv.indexOf("--export");
  const next = at >= 0 ? process.argv[at + 1] : undefined;
  const raw = at >= 0 ? (next && /^\d/.test(next) ? next : String(EXPORT_HISTORY)) : process.env.BENCH_EXPORT;
  if (raw === undefined || raw === "" || raw === "0") return 0;
  const n = Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(n) || n <= 0) {
    throw new Error(`--export / BENCH_EXPORT ${raw}: expected a whole number of messages`);
  }
  return n;
}

// `none`: no history sizes, for a run of the cold start, the steady state, the soak or the realm export alone
const sizes =
  process.env.BENCH_HISTORY === "none"
    ? []
    : (process.env.BENCH_HISTORY ?? "1000,10000")
        .split(",")
        .map((s) => Number(s.trim().replace(/_/g, "")))
        .filter((n) => n > 0);
if ((!sizes.length && process.env.BENCH_HISTORY !== "none") || sizes.some((n) => !Number.isInteger(n))) {
  throw new Error(`BENCH_HISTORY=${process.env.BENCH_HISTORY}: expected a comma list of message counts, or none`);
}
sizes.sort((a, b) => a - b);

const mixed = process.argv.includes("--mixed") || process.env.BENCH_MIXED === "1";

/** Sends by channel size: BENCH_CHANNEL_SIZES (subscribers, a comma list), or `--channel-sizes` for 10, 100 and 1,000. */
function channelSizes(): number[] {
  const raw = process.env.BENCH_CHANNEL_SIZES;
  if (raw === undefined || raw === "" || raw === "none") {
    return process.argv.includes("--channel-sizes") ? [10, 100, 1000] : [];
  }
  const list = raw.split(",").map((s) => Number(s.trim().replace(/_/g, "")));
  // 4 senders, each a subscriber
  if (list.some((n) => !Number.isInteger(n) || n < 4)) {
    throw new Error(`BENCH_CHANNEL_SIZES=${raw}: expected a comma list of subscriber counts, each at least 4`);
  }
  return [...new Set(list)].sort((a, b) => a - b);
}

export const config = {
  /** history sizes, smallest first: one organization each */
  history: sizes,
  seconds: num("BENCH_SECONDS", 10),
  connections: num("BENCH_CONNECTIONS", 16),
  eventSamples: num("BENCH_EVENT_SAMPLES", 200),
  mixed,
  /** simulated users of the mixed load's first measurement */
  mixedUsers: num("BENCH_USERS", 200),
  mixedSeconds: num("BENCH_MIXED_SECONDS", 60),
  /** the mixed load runs in the organization of this history size (default: the smallest) */
  mixedHistory: num("BENCH_MIXED_HISTORY", sizes[0] ?? 1000),
  /** the step search stops at this many users, and after this many seconds in all */
  mixedMaxUsers: num("BENCH_MIXED_MAX_USERS", 800),
  mixedBudgetSeconds: num("BENCH_MIXED_BUDGET_SECONDS", 900),
  cold,
  /** the cold start's organizations, each seeded before the services restart */
  coldCases: coldCases(process.env.BENCH_COLD_CASES || COLD_CASES),
  /** the cold start's members opening a client at the same time, each next one as soon as one is done */
  coldClients: num("BENCH_COLD_CLIENTS", 50),
  steady,
  /** the steady state's members, each with this many unread messages in their one channel */
  steadyMembers: num("BENCH_STEADY_MEMBERS", 400),
  steadyUnread: num("BENCH_STEADY_UNREAD", 10_000),
  steadySeconds: num("BENCH_STEADY_SECONDS", 120),
  /** members opening a client at the same time, each the next of the rotation */
  steadyClients: num("BENCH_STEADY_CLIENTS", 4),
  /** messages a second the other members send to the channel meanwhile */
  steadySendsPerSecond: num("BENCH_STEADY_SENDS_PER_SECOND", 2),
  /** channel sizes (subscribers), smallest first; empty: the scenario does not run */
  channelSizes: channelSizes(),
  /** members sending at once to each of those channels, in a closed loop */
  channelSenders: 4,
  channelSizeSeconds: num("BENCH_CHANNEL_SIZE_SECONDS", 15),
  soakMinutes: soakMinutes(),
  soakShape: soakShape(),
  /** BENCH_SOAK_CPU_HOG=1: a process keeps one core busy during the soak, as on a machine a third as fast */
  soakCpuHog: process.env.BENCH_SOAK_CPU_HOG === "1",
  /** BENCH_TRACE=FILE: each answer of the mixed load and the soak appended to FILE, to place a slow minute's answers in time */
  trace: process.env.BENCH_TRACE || undefined,
  /** simulated users of the soak (unset: half the largest user count the mixed load held) */
  soakUsers: process.env.BENCH_SOAK_USERS ? num("BENCH_SOAK_USERS", 0) : undefined,
  /** messages of the realm export's organization (0: the scenario does not run) */
  realmExport: realmExportHistory(),
  /** its members besides the owner, each receiving every message */
  realmExportMembers: 2,
  /** the last messages of each history go through POST /messages, the rest through bench/seed.ts */
  apiTail: 200,
  /** unread messages of the reader (fewer when the history is smaller) */
  unread: 5000,
  /** channels the reader is subscribed to */
  readerChannels: 50,
  subscribers: 10,
  crowd: 100,
  backgroundPerSecond: 20,
};

/** autocannon's per-request timeout for scenarios of `seconds` each: an answer slower than this counts as an error. */
export const requestTimeoutFor = (seconds: number): number => Math.max(1, Math.min(10, seconds - 1));
export const requestTimeoutSeconds = requestTimeoutFor(config.seconds);

export const say = (line: string): void => void process.stdout.write(`[bench] ${line}\n`);
