/** The benchmark's settings, from the environment (and `--mixed`); docs/benchmarks.md describes them. */

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return n;
};

const cold = process.argv.includes("--cold") || process.env.BENCH_COLD === "1";

// `none`: no history sizes, for a run of the cold scenario alone
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
  /** the cold scenario's members, each with this many unread messages in their one channel */
  coldMembers: num("BENCH_COLD_MEMBERS", 20),
  coldUnread: num("BENCH_COLD_UNREAD", 10_000),
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
