/**
 * Mixed load: N simulated users of an active team, each with a registered event queue
 * and a parked long-poll (re-polled after each answer), each acting in a loop. What a
 * user does, assumed from an active team's day (Zulip's web client, one tab each):
 *   - sends a message to their team's channel once per 60 s,
 *   - fetches the newest 100 messages of the history channel once per 30 s (opening a
 *     narrow / scrolling back),
 *   - reports its presence once per 60 s, as the web client does (POST
 *     /users/me/presence, active, asking for the organization's presence to redraw its
 *     buddy list); the "wildcard" shape reads GET /users/me instead, as the load it
 *     reproduces did, so its users stay idle for email,
 *   - re-polls GET /events after every answer (each send reaches the 25 members of a team),
 *   - marks the messages an answer brought as read (POST /messages/flags), as a client
 *     does when it shows them; each message's delivery is timed from its send's start
 *     ("events": a send's number in its content tells which send it was).
 * Each team's channel also has members who are away (they never open a client) with the
 * channel's email notifications on, as some of a real team are: every send queues a
 * missed-message email for each of them, mailed in Zulip's default 2-minute batches.
 * Each interval is jittered by ±20 % and each user starts at a random point of it.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { config, say, type SoakShape } from "./config";
import { Http, pct, pool, sleep } from "./http";
import type { Org, User } from "./org";
import { Poller, recovery, reportUndeleted, settle } from "./scenarios";

const TEAM_SIZE = 25;
/** members of each team's channel besides its TEAM_SIZE simulated users, away and emailed of every message */
const AWAY_PER_TEAM = 5;
const PERIOD_SECONDS = { send: 60, history: 30, presence: 60 } as const;
type Action = keyof typeof PERIOD_SECONDS;
/** A send's content ends with its number; the rendered content in an event keeps it. */
const SEND_NUMBER = /status update (\d+)/;
type SentMessage = { id: number; content: string };

/** One request per answered long-poll that brought messages. */
async function markRead(http: Http, messageIds: number[], stats: Stats, byNarrow?: string): Promise<void> {
  if (!messageIds.length) return;
  const r = byNarrow
    ? await http.post(
        "/messages/flags/narrow",
        {
          anchor: Math.min(...messageIds),
          include_anchor: true,
          num_before: 0,
          num_after: messageIds.length,
          narrow: JSON.stringify([{ operator: "channel", operand: byNarrow }]),
          op: "add",
          flag: "read",
        },
        30_000,
      )
    : await http.post("/messages/flags", { messages: messageIds, op: "add", flag: "read" }, 30_000);
  stats.record("markRead", r.status, r.ms);
}

class Stats {
  readonly latencies: number[] = [];
  readonly byAction = new Map<string, { n: number; errors: number; latencies: number[] }>();
  errors = 0;
  pollAnswers = 0;
  pollErrors = 0;
  /** where the current window began: in `latencies`, and the errors then; per action, its latencies' length */
  private windowStart = { latencies: 0, errors: 0, at: performance.now(), byAction: new Map<string, number>() };
  /** the current window's errors by action and status ("markRead 429"; "no answer" when none came) */
  private windowErrors = new Map<string, number>();

  /** `trace`: where each answer is appended as it comes (BENCH_TRACE) */
  constructor(private readonly trace?: WriteStream) {}

  /** An answer in the trace: when it came (epoch ms), its action, status and latency. */
  private traced(action: string, status: number, ms: number) {
    this.trace?.write(`${Date.now()} ${action} ${status} ${ms.toFixed(1)}\n`);
  }

  /** Once every answer is in: the trace written out. */
  async close(): Promise<void> {
    const trace = this.trace;
    if (trace) await new Promise<void>((resolve) => trace.end(resolve));
  }

  /** The actions answered since the last call (or the start), and starts a new window. */
  window(): MixedWindow {
    const now = performance.now();
    const ms = this.latencies.slice(this.windowStart.latencies).sort((a, b) => a - b);
    const errors = this.errors - this.windowStart.errors;
    const byAction = Object.fromEntries(
      [...this.byAction].map(([action, a]) => {
        const l = a.latencies.slice(this.windowStart.byAction.get(action) ?? 0).sort((x, y) => x - y);
        return [action, { n: l.length, p50: pct(l, 50), p99: pct(l, 99) }];
      }),
    );
    const w = {
      seconds: (now - this.windowStart.at) / 1000,
      requests: ms.length + errors,
      errors,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
      byAction,
      errorsBy: Object.fromEntries(this.windowErrors),
    };
    this.windowErrors = new Map();
    this.windowStart = {
      latencies: this.latencies.length,
      errors: this.errors,
      at: now,
      byAction: new Map([...this.byAction].map(([action, a]) => [action, a.latencies.length])),
    };
    return w;
  }

  /**
   * A message reaching a member's long-poll, `ms` after its send started: an action of its own
   * ("events") beside the others, left out of the actions' overall latency as long-polls are.
   */
  delivered(ms: number) {
    this.traced("events", 200, ms);
    const a = this.action("events");
    a.n++;
    a.latencies.push(ms);
  }

  /** An action's counts, made on its first sample. */
  private action(name: string) {
    return this.byAction.get(name) ?? this.byAction.set(name, { n: 0, errors: 0, latencies: [] }).get(name)!;
  }

  /** An action's answer: `status` 200 is a success; 0 is none (the client gave up). */
  record(action: string, status: number, ms: number) {
    this.traced(action, status, ms);
    const a = this.action(action);
    a.n++;
    if (status === 200) {
      a.latencies.push(ms);
      this.latencies.push(ms);
    } else {
      a.errors++;
      this.errors++;
      const key = `${action} ${status || "no answer"}`;
      this.windowErrors.set(key, (this.windowErrors.get(key) ?? 0) + 1);
    }
  }
}

/** Each message's delivery to each member's long-poll, timed from its send's start: its number rides in its content. */
class Deliveries {
  private readonly starts: number[] = [];

  constructor(private readonly stats: Stats) {}

  /** A send starting now: the number its content carries. */
  started(): number {
    return this.starts.push(performance.now()) - 1;
  }

  received(messages: SentMessage[]): void {
    for (const m of messages) {
      const started = this.starts[Number(SEND_NUMBER.exec(m.content)?.[1])];
      if (started !== undefined) this.stats.delivered(performance.now() - started);
    }
  }
}

/** A stretch of a mixed load: its actions (long-polls not included); latency of the successful ones, ms. */
export interface MixedWindow {
  seconds: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  /** the same per action (send, history, presence, markRead; events: deliveries): successful answers and their latency */
  byAction: Record<string, { n: number; p50: number; p99: number }>;
  /** the errors by action and status: `{"markRead 429": 3}` */
  errorsBy: Record<string, number>;
}

/** Reported while a load runs: every `seconds`, the window just ended and the long-polls' errors so far. */
export interface Every {
  seconds: number;
  /** When the users start acting (after their queues are registered). */
  started?(): void;
  report(w: MixedWindow, pollErrors: number): Promise<void>;
}

export interface MixedResult {
  users: number;
  seconds: number;
  requests: number;
  /** per second, of the actions (long-polls not included) */
  rps: number;
  avg: number;
  p99: number;
  /** errors / (actions + long-poll answers) */
  errorRate: number;
  pollAnswers: number;
  pollErrors: number;
  byAction: Record<string, { n: number; errors: number; avg: number; p99: number }>;
  holds: boolean;
  recoverySeconds: number | null;
}

const LIMITS = { avg: 100, p99: 1000, errorRate: 0.001 };

export class MixedLoad {
  private users: User[] = [];

  constructor(private readonly org: Org) {}

  /** At least `n` users, in teams of 25, each team with its channel. */
  private async ensureUsers(n: number) {
    const target = Math.ceil(n / TEAM_SIZE) * TEAM_SIZE;
    if (this.users.length >= target) return;
    say(`  creating ${target - this.users.length} more users (${target} in all) and their team channels...`);
    const made = await this.org.createUsers(`mixed${this.users.length}-`, target - this.users.length);
    const teamsBefore = this.users.length / TEAM_SIZE;
    this.users.push(...made);
    for (let t = teamsBefore; t < target / TEAM_SIZE; t++) {
      const members = this.users.slice(t * TEAM_SIZE, (t + 1) * TEAM_SIZE);
      const away = await this.org.createUsers(`away${t}-`, AWAY_PER_TEAM);
      const channel = (await this.org.createChannel(
        `team${t}`,
        [...members, ...away].map((u) => u.id),
      )) as { id: number };
      await this.org.emailFromChannel(channel.id, away);
    }
  }

  /** Each user's queue and long-poll: what an answer brings is timed and marked read. */
  private async registerQueues(users: User[], stats: Stats, deliveries: Deliveries, shape: SoakShape) {
    say(`  ${users.length} users register their queues...`);
    return pool(users, 8, (u) => {
      const http = this.org.as(u);
      const byNarrow = shape === "wildcard" ? `team${Math.floor(users.indexOf(u) / TEAM_SIZE)}` : undefined;
      return Poller.register(http, (events) => {
        stats.pollAnswers++;
        const messages = events.filter((e) => e.type === "message").map((e) => e.message as SentMessage);
        deliveries.received(messages);
        const ids = messages.map((m) => m.id);
        void markRead(http, ids, stats, byNarrow);
      });
    });
  }

  /**
   * `wildcard`: every message mentions `@**all**` (a mention of every member, which their unread
   * mentions count, derived from the message rather than a row per member) and what a
   * long-poll brought is marked read through `/messages/flags/narrow` over the team's channel.
   */
  async run(n: number, seconds: number, every?: Every, shape: SoakShape = "mixed"): Promise<MixedResult> {
    await this.ensureUsers(n);
    const users = this.users.slice(0, n);
    const stats = new Stats(config.trace ? createWriteStream(config.trace, { flags: "a" }) : undefined);
    const deliveries = new Deliveries(stats);
    const pollers = await this.registerQueues(users, stats, deliveries, shape);
    say(`  ${n} users active for ${seconds} s...`);
    every?.started?.();
    pollers.forEach((p) => p.start());
    const end = performance.now() + seconds * 1000;
    const narrow = JSON.stringify([{ operator: "channel", operand: this.org.historyChannel }]);
    const act = async (http: Http, team: number, action: Action) => {
      const number = action === "send" ? deliveries.started() : -1;
      const r =
        action === "send"
          ? await http.post(
              "/messages",
              {
                type: "stream",
                to: `team${team}`,
                topic: "work",
                content: `${shape === "wildcard" ? "@**all** " : ""}status update ${number}`,
              },
              30_000,
            )
          : action === "history"
            ? await http.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow }, 30_000)
            : shape === "wildcard"
              ? await http.get("/users/me", {}, 30_000)
              : await http.post(
                  "/users/me/presence",
                  { status: "active", ping_only: false, new_user_input: true, slim_presence: true },
                  30_000,
                );
      stats.record(action, r.status, r.ms);
    };
    const inFlight = new Set<Promise<void>>();
    // the pending ones only: a soak schedules hundreds of thousands
    const timers = new Set<NodeJS.Timeout>();
    users.forEach((u, i) => {
      const http = this.org.as(u);
      const team = Math.floor(i / TEAM_SIZE);
      for (const action of Object.keys(PERIOD_SECONDS) as Action[]) {
        const period = PERIOD_SECONDS[action] * 1000;
        const schedule = (delay: number) => {
          const t = setTimeout(() => {
            timers.delete(t);
            if (performance.now() >= end) return;
            const p = act(http, team, action).finally(() => inFlight.delete(p));
            inFlight.add(p);
            schedule(period * (0.8 + 0.4 * Math.random()));
          }, delay);
          timers.add(t);
        };
        schedule(Math.random() * period);
      }
    });
    let lastSaid = performance.now();
    let windowEnd = performance.now() + (every?.seconds ?? Infinity) * 1000;
    const pollErrors = () => pollers.reduce((s, p) => s + p.errors, 0);
    while (performance.now() < end) {
      await sleep(Math.min(1000, end - performance.now()));
      // the last window closes at the end, whatever the clock says after the sleep
      if (every && (performance.now() >= windowEnd || performance.now() >= end)) {
        windowEnd += every.seconds * 1000;
        await every.report(stats.window(), pollErrors());
      } else if (!every && performance.now() - lastSaid > 10_000) {
        lastSaid = performance.now();
        say(
          `    ${Math.ceil((end - performance.now()) / 1000)} s left, ${stats.latencies.length + stats.errors} actions so far`,
        );
      }
    }
    timers.forEach(clearTimeout);
    // the answers of actions started before the end count (bounded by their 30 s timeout)
    await Promise.all(inFlight);
    stats.pollErrors = pollErrors();
    await stats.close();
    reportUndeleted(await pool(pollers, 8, (p) => p.stop()));

    const sorted = [...stats.latencies].sort((a, b) => a - b);
    const requests = sorted.length + stats.errors;
    const avg = sorted.length ? sorted.reduce((s, x) => s + x, 0) / sorted.length : NaN;
    const errorRate = (stats.errors + stats.pollErrors) / Math.max(1, requests + stats.pollAnswers + stats.pollErrors);
    const byAction = Object.fromEntries(
      [...stats.byAction].map(([k, a]) => {
        const l = [...a.latencies].sort((x, y) => x - y);
        return [
          k,
          { n: a.n, errors: a.errors, avg: l.length ? l.reduce((s, x) => s + x, 0) / l.length : NaN, p99: pct(l, 99) },
        ];
      }),
    );
    const p99 = pct(sorted, 99);
    const holds = requests > 0 && avg <= LIMITS.avg && p99 <= LIMITS.p99 && errorRate <= LIMITS.errorRate;
    say(
      `  ${n} users: ${requests} requests (${(requests / seconds).toFixed(1)}/s) + ${stats.pollAnswers} long-poll answers; ` +
        `avg ${avg.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, errors ${(errorRate * 100).toFixed(2)} % → ${holds ? "holds" : "does NOT hold"}`,
    );
    const recoverySeconds = await recovery(this.org);
    await settle(this.org, recoverySeconds);
    return {
      users: n,
      seconds,
      requests,
      rps: requests / seconds,
      avg,
      p99,
      errorRate,
      pollAnswers: stats.pollAnswers,
      pollErrors: stats.pollErrors,
      byAction,
      holds,
      recoverySeconds,
    };
  }
}

export interface MixedReport {
  history: number;
  main: MixedResult;
  steps: MixedResult[];
  /** the largest N that held (null: not even the first step) */
  largestN: number | null;
  limits: typeof LIMITS;
  stoppedBecause: string;
}

const loads = new WeakMap<Org, MixedLoad>();
/** One MixedLoad per organization: its users and team channels are made once, whichever load runs first. */
export function mixedLoadOf(org: Org): MixedLoad {
  return loads.get(org) ?? loads.set(org, new MixedLoad(org)).get(org)!;
}

/** BENCH_USERS users for BENCH_MIXED_SECONDS, then N = 50, 100, 200, ... while the limits hold. */
export async function runMixed(org: Org): Promise<MixedReport> {
  const mixed = mixedLoadOf(org);
  const seconds = config.mixedSeconds;
  say(`[${org.subdomain}] mixed load: ${config.mixedUsers} users for ${seconds} s...`);
  const main = await mixed.run(config.mixedUsers, seconds);
  const started = performance.now();
  const steps: MixedResult[] = [];
  let largestN: number | null = null;
  let stoppedBecause = "";
  for (let n = 50; ; n *= 2) {
    if (n > config.mixedMaxUsers) {
      stoppedBecause = `next step ${n} > BENCH_MIXED_MAX_USERS=${config.mixedMaxUsers}`;
      break;
    }
    if ((performance.now() - started) / 1000 + seconds > config.mixedBudgetSeconds) {
      stoppedBecause = `BENCH_MIXED_BUDGET_SECONDS=${config.mixedBudgetSeconds} spent`;
      break;
    }
    say(`[${org.subdomain}] mixed load step: ${n} users for ${seconds} s...`);
    const r = n === main.users ? main : await mixed.run(n, seconds);
    steps.push(r);
    if (!r.holds) {
      stoppedBecause = `${n} users exceed the limits`;
      break;
    }
    largestN = n;
  }
  say(
    `[${org.subdomain}] largest N within avg ≤ ${LIMITS.avg} ms, p99 ≤ ${LIMITS.p99} ms, errors ≤ ${LIMITS.errorRate * 100} %: ` +
      `${largestN ?? "< 50"} (${stoppedBecause})`,
  );
  return { history: org.size, main, steps, largestN, limits: LIMITS, stoppedBecause };
}
