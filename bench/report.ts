/**
 * A run's figures go to bench/results/ as JSON (latest.json always; history-100000.json when the run
 * has 100,000 messages, and a file of its own for each scenario APART it ran, as those take long and
 * most runs leave them out), and docs/benchmarks.md is rendered from those files, so it always shows
 * the latest result of each kind and nothing older.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as prettier from "prettier";
import { REPO_ROOT } from "../scripts/lib/infra";
import { checkBounds, scenarioName as name, soakGrowthSpan, soakStart, type BoundCheck } from "./bounds";
import { requestTimeoutFor, say, soakVariant } from "./config";
import {
  caseLabel,
  errorsByStatus,
  type ChannelSizeFigures,
  type ChannelSizesResult,
  type ColdCaseResult,
  type ColdResult,
  type ColdRound,
  type RealmExportResult,
  type Report,
  type SizeResult,
  type SoakResult,
  type SteadyResult,
} from "./figures";

const f = (n: number | null | undefined, d = 1) =>
  n === null || n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d);
const x = (a: number, b: number, d = 1) => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(d)}x` : "-");
const rec = (s: number | null | undefined) => (s === undefined ? "-" : s === null ? "> 30" : s.toFixed(2));

/** Each metered scenario's CPU ms per request, a column per process, and their sum. */
function cpuTable(s: SizeResult): string[] {
  const metered = [...s.loads, s.events].filter((l) => l.cpuMsPerRequest);
  if (!metered.length) return [];
  const processes = Object.keys(metered[0]!.cpuMsPerRequest!);
  const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  return [
    "CPU ms per request (user + system, from /proc; event delivery: per send, the crowd's fan-out included):",
    "",
    `| scenario | ${processes.join(" | ")} | all |`,
    `|---|${processes.map(() => "---:").join("|")}|---:|`,
    ...metered.map(
      (l) =>
        `| ${name(l.scenario)} | ${processes.map((p) => f(l.cpuMsPerRequest![p], 2)).join(" | ")} | ${f(total(l.cpuMsPerRequest!), 2)} |`,
    ),
    "",
  ];
}

/** Which parts of a stored run a section of docs/benchmarks.md shows. */
interface Parts {
  bounds: boolean;
  /** the history sizes whose tables are shown */
  sizes: (s: SizeResult) => boolean;
  growth: boolean;
  memory: boolean;
  mixed: boolean;
  cold: boolean;
  steady: boolean;
  soak: boolean;
  channelSizes: boolean;
  realmExport: boolean;
}

const ALL: Parts = {
  bounds: true,
  sizes: () => true,
  growth: true,
  memory: true,
  mixed: true,
  cold: true,
  steady: true,
  soak: true,
  channelSizes: true,
  realmExport: true,
};
const NONE: Parts = {
  bounds: false,
  sizes: () => false,
  growth: false,
  memory: false,
  mixed: false,
  cold: false,
  steady: false,
  soak: false,
  channelSizes: false,
  realmExport: false,
};

/** The cold start: per case, each round's steps; then each process's peak RSS per case's cold round. */
function coldSection(c: ColdResult): string[] {
  const cases = c.cases;
  return [
    "### Cold start",
    "",
    `Per case (members × unread @ history): every member (${c.clients ? `at most ${c.clients} at a time, the next as soon as one is done` : "all at once"}) \`POST /register\`, \`GET /messages\` at ` +
      "`first_unread` (channel narrow, 100 after), the channel's newest 100, right after a restart of the services " +
      "(cold), again right after (warm), and warm once more one member at a time (the first 100): a client's " +
      "latency with no other queued on the same cores; latency of every attempt, errors included.",
    "",
    "| case | seeded s (of which bulk) | restart s | round | register p50 / p99 ms | first_unread p50 / p99 ms | channel page p50 / p99 ms | errors | members done | every member done s | system peak MiB |",
    "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...cases.flatMap((k) =>
      k.rounds.map((r, i) => {
        const steps = r.steps.map((s) => `${f(s.p50, 0)} / ${f(s.p99, 0)}`).join(" | ");
        const errors = r.steps.reduce((n, s) => n + s.errors, 0);
        const done = `${r.completedMembers} of ${k.members}${r.wrongFirstUnread ? ` (${r.wrongFirstUnread} first_unread pages not at the first unread)` : ""}`;
        return (
          `| ${i ? "" : caseLabel(k)} | ${i ? "" : `${f(k.seedSeconds, 0)} (${f(k.seedBulkSeconds, 0)})`} | ${i ? "" : f(k.restartSeconds)} | ${r.round} | ` +
          `${steps} | ${errors} | ${done} | ${r.allDoneSeconds === null ? "not all" : f(r.allDoneSeconds, 2)} | ${f(r.systemPeakMiB, 0)} |`
        );
      }),
    ),
    "",
    ...cases.flatMap((k) =>
      k.rounds.flatMap((r) =>
        r.steps.filter((s) => s.errors).map((s) => `- ${caseLabel(k)}, ${r.round}, ${s.step}: ${errorsByStatus(s)}`),
      ),
    ),
    "",
    "Each process's highest RSS sampled during the cold round (MiB):",
    "",
    `| process | ${cases.map(caseLabel).join(" | ")} |`,
    `|---|${cases.map(() => "---:").join("|")}|`,
    ...cases[0]!.rounds[0]!.memory.map(
      ({ process }, i) => `| ${process} | ${cases.map((k) => f(k.rounds[0]!.memory[i]?.peakMiB)).join(" | ")} |`,
    ),
    "",
    ...cpuPerMember(cases),
  ];
}

/** Each process's CPU ms per member, per case and round: where a client's start costs. */
function cpuPerMember(cases: ColdCaseResult[]): string[] {
  const processes = Object.keys(cases[0]!.rounds[0]!.cpuMsPerMember ?? {});
  if (!processes.length) return [];
  const columns = cases.flatMap((k) =>
    k.rounds.map((r) => ({ label: `${caseLabel(k)} ${r.round.replace(/ \(.*\)$/, "")}`, r })),
  );
  const total = (r: ColdRound) => Object.values(r.cpuMsPerMember ?? {}).reduce((a, b) => a + b, 0);
  return [
    "CPU ms per member (user + system, from /proc, over each round; the bench's client parses every answer on the same cores):",
    "",
    `| process | ${columns.map((c) => c.label).join(" | ")} |`,
    `|---|${columns.map(() => "---:").join("|")}|`,
    ...processes.map((p) => `| ${p} | ${columns.map((c) => f(c.r.cpuMsPerMember?.[p])).join(" | ")} |`),
    `| all | ${columns.map((c) => f(total(c.r))).join(" | ")} |`,
    "",
  ];
}

/** The steady state: each kind of request's figures and the memory while it ran. */
function steadySection(s: SteadyResult): string[] {
  const fullSize =
    s.members < 1000 || s.unread < 10_000
      ? `; 1,000 × 10,000 would take ~${f(s.fullSizeSeedMinutes, 0)} min to seed at this run's speed`
      : "";
  return [
    `### Steady state (${s.members} members × ${s.unread} unread, seeded in ${f(s.seedSeconds, 0)} s${fullSize})`,
    "",
    `${s.clients} members at a time, each the next of a rotation through all of them: \`POST /register\`, the ` +
      `first_unread page, the page marked read; meanwhile ${s.sendsPerSecond} sends/s to their channel; ${s.seconds} s, ` +
      `${s.visits} members through (${f(s.visits / s.members, 2)} times round). Latency of every attempt, errors included.`,
    "",
    "| request | requests | p50 ms | p99 ms | errors |",
    "|---|---:|---:|---:|---:|",
    ...s.requests.map((r) => `| ${r.kind} | ${r.requests} | ${f(r.p50, 0)} | ${f(r.p99, 0)} | ${r.errors} |`),
    "",
    `Whole system's peak meanwhile: **${f(s.systemPeakMiB, 0)} MiB**; each process's highest RSS (MiB): ` +
      s.memory.map((m) => `${m.process} ${f(m.peakMiB, 0)}`).join(", ") +
      ".",
    "",
  ];
}

/** The soak: a row per minute. */
function soakSection(s: SoakResult): string[] {
  const processes = Object.keys(s.minutes[0]?.rssMiB ?? {});
  const start = soakStart(s);
  const span = soakGrowthSpan(s);
  return [
    `### Soak (${s.users} users, ${s.usersFrom}; history ${s.history} at the start; ${s.minutes.length} min` +
      `${soakVariant(s.shape ?? "mixed", s.cpuHog ?? false)})`,
    "",
    "The mixed load's users, their sends growing the history; per minute: actions answered per second, their latency " +
      "(long-polls not included), errors, the messages stored in the whole system at the minute's end and each " +
      `process's highest RSS sampled during the minute. ${start.minutes === 1 ? "Minute 1" : `Minutes 1–${start.minutes}`}: ${f(start.rps)} actions/s, p99 ${f(start.p99)} ms; RSS growth judged ` +
      `from minute ${span.from.minute} to ${span.to.minute}, each the highest of the 5 minutes up to it.`,
    "",
    `| minute | actions/s | p50 ms | p99 ms | errors | long-poll errors | messages stored | ${processes.map((p) => `${p} MiB`).join(" | ")} |`,
    `|---:|---:|---:|---:|---:|---:|---:|${processes.map(() => "---:").join("|")}|`,
    ...s.minutes.map(
      (m) =>
        `| ${m.minute} | ${f(m.rps)} | ${f(m.p50, 0)} | ${f(m.p99, 0)} | ${m.errors} | ${m.pollErrors} | ${m.messages} | ` +
        `${processes.map((p) => f(m.rssMiB[p], 0)).join(" | ")} |`,
    ),
    "",
    ...soakActionsTable(s),
    `In all: ${s.total.requests} actions (${f(s.total.rps)}/s), avg ${f(s.total.avg)} ms, p99 ${f(s.total.p99)} ms, ` +
      `errors ${f(s.total.errorRate * 100, 2)} %.`,
    "",
  ];
}

/** The soak's p99 per action and minute (results older than the per-action figures have none). */
function soakActionsTable(s: SoakResult): string[] {
  const actions = Object.keys(s.minutes[0]?.byAction ?? {});
  if (!actions.length) return [];
  return [
    "p99 ms per action and minute (answers in the minute in brackets):",
    "",
    `| minute | ${actions.join(" | ")} |`,
    `|---:|${actions.map(() => "---:").join("|")}|`,
    ...s.minutes.map(
      (m) =>
        `| ${m.minute} | ${actions.map((a) => `${f(m.byAction?.[a]?.p99 ?? NaN, 0)} (${m.byAction?.[a]?.n ?? 0})`).join(" | ")} |`,
    ),
    "",
  ];
}

/** Sends by channel size: a figure per row, a column per size, then each size's ratio to the smallest. */
function channelSizesSection(c: ChannelSizesResult): string[] {
  const [base, ...rest] = c.sizes as [ChannelSizeFigures, ...ChannelSizeFigures[]];
  const cpuTotal = (s: ChannelSizeFigures) => Object.values(s.cpuMsPerSend).reduce((a, b) => a + b, 0);
  const collections = [...new Set(c.sizes.flatMap((s) => Object.keys(s.documentsWrittenByCollection)))];
  /** what, its figure, decimals, whether a ratio to the smallest size says something */
  const rows: Array<[string, (s: ChannelSizeFigures) => number, number, boolean]> = [
    ["sends/s", (s) => s.sendsPerSecond, 1, true],
    ["p50 ms", (s) => s.p50, 0, true],
    ["p99 ms", (s) => s.p99, 0, true],
    ["errors", (s) => s.errors, 0, false],
    ["database commands / send", (s) => s.commandsPerSend, 1, true],
    ["statements / send", (s) => s.statementsPerSend, 1, true],
    ["**documents written / send**", (s) => s.documentsWrittenPerSend, 1, true],
    ...collections.map((col): [string, (s: ChannelSizeFigures) => number, number, boolean] => [
      `… of which ${col}`,
      (s) => s.documentsWrittenByCollection[col] ?? 0,
      1,
      true,
    ]),
    ["documents returned / send", (s) => s.documentsReturnedPerSend, 1, true],
    ["every service's documents written / send", (s) => s.allServicesDocumentsWrittenPerSend, 1, true],
    ["CPU ms / send (all processes)", cpuTotal, 1, true],
    ["system peak MiB", (s) => s.systemPeakMiB, 0, false],
  ];
  const processes = Object.keys(base.cpuMsPerSend);
  return [
    `### Sends by channel size (${c.senders} senders, ${c.seconds} s per size; members and channels created in ${f(c.seedSeconds, 0)} s)`,
    "",
    `Per channel size (subscribers), ${c.senders} of its members each sending \`POST /messages\` in a closed loop; ` +
      "latency of every send, errors included; messaging's database work per successful send from its own counters " +
      "(`teamchat_db_*`, scraped before and after, the work after each reply included).",
    "",
    `| figure | ${[...c.sizes.map((s) => `${s.subscribers}`), ...rest.map((s) => `${s.subscribers} / ${base.subscribers}`)].join(" | ")} |`,
    `|---|${[...c.sizes, ...rest].map(() => "---:").join("|")}|`,
    ...rows.map(([what, get, d, ratio]) => {
      const cells = [...c.sizes.map((s) => f(get(s), d)), ...rest.map((s) => (ratio ? x(get(s), get(base), 2) : ""))];
      return `| ${what} | ${cells.join(" | ")} |`;
    }),
    "",
    "CPU ms per send (user + system, from /proc):",
    "",
    `| subscribers | ${processes.join(" | ")} | all |`,
    `|---:|${processes.map(() => "---:").join("|")}|---:|`,
    ...c.sizes.map(
      (s) =>
        `| ${s.subscribers} | ${processes.map((p) => f(s.cpuMsPerSend[p], 2)).join(" | ")} | ${f(cpuTotal(s), 2)} |`,
    ),
    "",
  ];
}

/** The realm export: its time against its bound's rate, what the tarball holds, and what it cost each process. */
function realmExportSection(e: RealmExportResult): string[] {
  const cpu = Object.entries(e.cpuSeconds);
  return [
    `### Realm export (${e.history} messages, ${e.members + 1} receivers each; seeded in ${f(e.seedSeconds, 0)} s)`,
    "",
    "A full export (`POST /export/realm`, `export_type=2`, the owner consenting) of an organization whose one channel " +
      "holds the history, from the request until `GET /export/realm` (polled every 250 ms) says it is done; the " +
      "tarball then downloaded and its message files counted. Messaging's RSS sampled every 100 ms meanwhile, its " +
      "database work from its own counters, each process's CPU from /proc.",
    "",
    "| figure | value |",
    "|---|---:|",
    `| **seconds** | **${f(e.seconds)}** |`,
    `| seconds per 100,000 messages | ${f((e.seconds * 100_000) / e.history)} |`,
    `| messages in the tarball | ${e.messages} |`,
    `| user rows (zerver_usermessage) | ${e.userMessages} |`,
    `| tarball MiB | ${f(e.tarballMiB)} |`,
    `| messaging RSS before / at its peak MiB | ${f(e.rssBeforeMiB, 0)} / ${f(e.rssPeakMiB, 0)} (+${f(e.rssPeakMiB - e.rssBeforeMiB, 0)}) |`,
    `| messaging's database commands | ${e.dbCommands} |`,
    `| documents returned to messaging | ${e.documentsReturned} |`,
    ...cpu.map(([process, seconds]) => `| CPU s, ${process} | ${f(seconds)} |`),
    `| whole system's peak MiB | ${f(e.systemPeakMiB, 0)} |`,
    "",
  ];
}

/** One run as a section of docs/benchmarks.md; `bounds` is checkBounds(r) as stored with the run. */
function renderRun(title: string, r: Report, bounds: BoundCheck[], parts: Parts = ALL): string {
  const cfg = r.settings;
  const L: string[] = [];
  L.push(
    `## ${title}`,
    "",
    `${r.startedAt}; ${cfg.seconds} s per scenario, ${cfg.connections} connections, ` +
      `request timeout ${requestTimeoutFor(cfg.seconds)} s, history ${cfg.history.join(" / ") || "none"}; ` +
      `run took ${(r.runSeconds / 60).toFixed(1)} min; ${cfg.machine}.`,
    "",
  );
  if (parts.bounds && bounds.length) {
    L.push(
      "### Bounds",
      "",
      "The figures the system must reach (twice the Matrix homeserver Synapse; for the cold start, Zulip's production " +
        "register latency; bench/bounds.ts), per history size:",
      "",
      "| bound | limit | this run | holds |",
      "|---|---|---|---|",
      ...bounds.map((c) => `| ${c.what} | ${c.limit} | ${c.figures} | ${c.holds ? "yes" : "**no**"} |`),
      "",
    );
  }
  for (const s of r.sizes.filter(parts.sizes)) {
    const b = s.loads[0]!;
    L.push(
      `### History ${s.size} messages (seeded in ${s.seedSeconds.toFixed(0)} s)`,
      "",
      "| scenario | req/s | p50 ms | p99 ms | errors | req/s vs baseline | p50 vs baseline | p99 vs baseline | recovery s |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...s.loads.map(
        (l) =>
          `| ${name(l.scenario)} | ${f(l.rps, 1)} | ${f(l.p50)} | ${f(l.p99)} | ${l.errors} | ${f(l.rps / b.rps, 4)} | ${x(l.p50, Math.max(b.p50, 1))} | ${x(l.p99, Math.max(b.p99, 1))} | ${rec(l.recoverySeconds)} |`,
      ),
      `| ${s.events.scenario} (${s.events.samples} samples) | - | ${f(s.events.p50)} | ${f(s.events.p99)} | ${s.events.errors} | - | ${x(s.events.p50, Math.max(b.p50, 1))} | ${x(s.events.p99, Math.max(b.p99, 1))} | ${rec(s.events.recoverySeconds)} |`,
      "",
      ...cpuTable(s),
      `Event delivery under ${cfg.crowd} parked long-polls: background ${f(s.events.backgroundPerSecond)} sends/s achieved ` +
        `(${cfg.backgroundPerSecond} asked, ${s.events.backgroundErrors} errors), the ${cfg.crowd} users received ` +
        `${f(s.events.crowdEventsPerSecond, 0)} events/s, ${s.events.crowdPollErrors} long-poll errors. ` +
        `The measured sends' own POST /messages took p50 ${f(s.events.sendP50)} ms, p99 ${f(s.events.sendP99)} ms ` +
        `(a delivery cannot come before its message is stored).`,
      "",
    );
  }
  if (parts.growth && r.sizes.length > 1) {
    const first = r.sizes[0]!;
    const rest = r.sizes.slice(1);
    L.push(
      `### Growth with history (each size's figure / the ${first.size}-message figure)`,
      "",
      `| scenario | figure | ${r.sizes.map((s) => `${s.size}`).join(" | ")} | ${rest.map((s) => `${s.size} / ${first.size}`).join(" | ")} |`,
      `|---|---|${r.sizes.map(() => "---:").join("|")}|${rest.map(() => "---:").join("|")}|`,
    );
    const rows: Array<[string, string, (s: SizeResult) => number | null | undefined]> = [];
    first.loads.forEach((l, i) => {
      rows.push([name(l.scenario), "req/s", (s) => s.loads[i]?.rps]);
      rows.push([name(l.scenario), "p50 ms", (s) => s.loads[i]?.p50]);
      rows.push([name(l.scenario), "p99 ms", (s) => s.loads[i]?.p99]);
      rows.push([name(l.scenario), "errors", (s) => s.loads[i]?.errors]);
      if (i > 0) rows.push([name(l.scenario), "recovery s", (s) => s.loads[i]?.recoverySeconds]);
    });
    rows.push([first.events.scenario, "p50 ms", (s) => s.events.p50]);
    rows.push([first.events.scenario, "p99 ms", (s) => s.events.p99]);
    rows.push([first.events.scenario, "errors", (s) => s.events.errors]);
    for (const [scenario, figure, get] of rows) {
      const v0 = get(first);
      L.push(
        `| ${scenario} | ${figure} | ${r.sizes.map((s) => f(get(s), figure === "errors" ? 0 : 1)).join(" | ")} | ${rest
          .map((s) => (figure === "errors" ? "" : x(get(s) ?? NaN, v0 ?? NaN, 2)))
          .join(" | ")} |`,
      );
    }
    L.push("");
  }
  const base = r.memory.processes[0]!.peakMiB;
  // each process's peak per phase, where recorded: which phase set a process's peak
  const perProcess = r.memory.processPeaksByPhase ? r.memory.processes.slice(1).map((p) => `${p.process} MiB`) : [];
  if (parts.memory) {
    L.push(
      "### Memory",
      "",
      "| process | peak RSS MiB (VmHWM) | vs baseline | at the whole system's peak: RSS MiB | of which file-backed |",
      "|---|---:|---:|---:|---:|",
      ...r.memory.processes.map(
        ({ process, peakMiB, atSystemPeak: at }) =>
          `| ${process} | ${f(peakMiB)} | ${x(peakMiB, base, 2)} | ${at ? f(at.anon + at.file) : "-"} | ${at ? f(at.file) : "-"} |`,
      ),
      "",
      `Whole system (services + nats-server + database), sampled every 250 ms (${r.memory.samples} samples), at its peak: ` +
        `**${f(r.memory.systemPeak.physical)} MiB** physical (${x(r.memory.systemPeak.physical, base, 2)} the baseline's peak RSS): ` +
        `the processes' anonymous pages, plus each program's file-backed pages once (the node binary's are the same physical ` +
        `pages in every Node service). The sum of their RSS, which counts those pages once per process, peaked at ` +
        `${f(r.memory.systemPeak.rssSum)} MiB.`,
      "",
      `| phase | system peak MiB (physical) | summed RSS peak MiB |${perProcess.map((p) => ` ${p} |`).join("")}`,
      `|---|---:|---:|${perProcess.map(() => "---:|").join("")}`,
      ...Object.entries(r.memory.systemPeakByPhase).map(
        ([p, v]) =>
          `| ${p} | ${f(v.physical)} | ${f(v.rssSum)} |` +
          perProcess.map((_, i) => ` ${f(r.memory.processPeaksByPhase?.[p]?.[i])} |`).join(""),
      ),
      "",
    );
  }
  if (parts.mixed && r.mixed) {
    const m = r.mixed;
    L.push(
      `### Mixed load (history ${m.history}; ${m.main.seconds} s per measurement)`,
      "",
      "Per user: a send to their 25-member team channel every 60 s, the newest 100 messages of the history channel every 30 s, " +
        "its presence (`POST /users/me/presence`; `GET /users/me` in runs before 2026-11-30) every 60 s (±20 %), a long-poll " +
        "re-polled after every answer, the messages " +
        "it brought marked read (`POST /messages/flags`). Latency and req/s are of those actions (long-polls wait by design); " +
        "the error rate counts long-poll failures too. By action, events are the messages' deliveries to the members' " +
        "long-polls, each timed from its send's start.",
      "",
      "| users | actions/s | avg ms | p99 ms | errors % | long-poll answers | within limits | recovery s |",
      "|---:|---:|---:|---:|---:|---:|---|---:|",
      ...[m.main, ...m.steps.filter((s) => s !== m.main)].map(
        (s) =>
          `| ${s.users}${s === m.main ? " (BENCH_USERS)" : ""} | ${f(s.rps)} | ${f(s.avg)} | ${f(s.p99)} | ${f(s.errorRate * 100, 2)} | ${s.pollAnswers} | ${s.holds ? "yes" : "no"} | ${rec(s.recoverySeconds)} |`,
      ),
      "",
      `BENCH_USERS=${m.main.users} by action:`,
      "",
      "| action | requests | errors | avg ms | p99 ms |",
      "|---|---:|---:|---:|---:|",
      ...Object.entries(m.main.byAction).map(([k, a]) => `| ${k} | ${a.n} | ${a.errors} | ${f(a.avg)} | ${f(a.p99)} |`),
      "",
      `**Largest N with avg ≤ ${m.limits.avg} ms, p99 ≤ ${m.limits.p99} ms, errors ≤ ${m.limits.errorRate * 100} %: ` +
        `${m.largestN ?? "fewer than 50"}** (stepping 50, 100, 200, ...; stopped: ${m.stoppedBecause}).`,
      "",
    );
  }
  if (parts.cold && r.cold) L.push(...coldSection(r.cold));
  if (parts.steady && r.steady) L.push(...steadySection(r.steady));
  if (parts.soak && r.soak?.minutes.length) L.push(...soakSection(r.soak));
  if (parts.channelSizes && r.channelSizes) L.push(...channelSizesSection(r.channelSizes));
  if (parts.realmExport && r.realmExport) L.push(...realmExportSection(r.realmExport));
  if (r.failures.length) L.push("### Failed steps", "", ...r.failures.map((f) => `- ${f}`), "");
  return L.join("\n");
}

const RESULTS = join(REPO_ROOT, "bench/results");
const DOC = join(REPO_ROOT, "docs/benchmarks.md");
/** docs/benchmarks.md keeps what is above this line (how to run, what each scenario measures). */
const GENERATED_BELOW = "<!-- Everything below is written by `npm run bench` from bench/results/*.json. -->";

type StoredReport = Report & { bounds?: BoundCheck[] };

const hasLargeHistory = (r: Report) => r.sizes.some((s) => s.size >= 100_000);
/** The scenarios most runs leave out, each kept in a file of its own until a run has it again. */
const APART: ReadonlyArray<{
  file: string;
  title: string;
  part: keyof Report & keyof Parts;
  bounds: string;
  /** which runs of the part go to this file (all when absent) */
  holds?: (r: Report) => boolean;
}> = [
  { file: "mixed-load.json", title: "Latest mixed load", part: "mixed", bounds: "" },
  ...(["mixed", "wildcard"] as const).flatMap((shape) =>
    [false, true].map((hog) => ({
      file: `soak${shape === "mixed" ? "" : `-${shape}`}${hog ? "-hog" : ""}.json`,
      title: `Latest soak${soakVariant(shape, hog)}`,
      part: "soak" as const,
      bounds: "soak",
      holds: (r: Report) => (r.soak?.shape ?? "mixed") === shape && (r.soak?.cpuHog ?? false) === hog,
    })),
  ),
  { file: "steady-state.json", title: "Latest steady state", part: "steady", bounds: "steady" },
  { file: "cold-start.json", title: "Latest cold start", part: "cold", bounds: "cold" },
  { file: "channel-sizes.json", title: "Latest sends by channel size", part: "channelSizes", bounds: "channel sizes" },
  { file: "realm-export.json", title: "Latest realm export", part: "realmExport", bounds: "realm export" },
];

function readStored(file: string): StoredReport | undefined {
  const path = join(RESULTS, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as StoredReport) : undefined;
}

/** The largest user count the recorded mixed load held (undefined: none recorded). */
export const recordedMixedLargestN = (): number | undefined =>
  readStored("mixed-load.json")?.mixed?.largestN ?? undefined;

/** docs/benchmarks.md's generated part: the latest run, and the latest 100,000-message run and each scenario APART when older. */
export async function renderBenchmarksDoc(): Promise<void> {
  const latest = readStored("latest.json");
  if (!latest) throw new Error("bench/results/latest.json is missing: run `npm run bench` first");
  const large = readStored("history-100000.json");
  const sections = [renderRun("Latest run", latest, latest.bounds ?? checkBounds(latest))];
  if (large && large.startedAt !== latest.startedAt) {
    sections.push(
      renderRun("Latest run with 100,000 messages", large, large.bounds ?? checkBounds(large), {
        ...NONE,
        bounds: true,
        sizes: (s) => s.size >= 100_000,
        growth: true,
        memory: true,
      }),
    );
  }
  for (const apart of APART) {
    const stored = readStored(apart.file);
    if (!stored?.[apart.part] || (apart.holds && !apart.holds(stored)) || stored.startedAt === latest.startedAt)
      continue;
    const bounds = apart.bounds
      ? (stored.bounds ?? checkBounds(stored)).filter((b) => b.what.startsWith(apart.bounds))
      : [];
    sections.push(
      renderRun(apart.title, stored, bounds, {
        ...NONE,
        bounds: true,
        memory: apart.part === "cold",
        [apart.part]: true,
      }),
    );
  }
  const doc = readFileSync(DOC, "utf8");
  const cut = doc.indexOf(GENERATED_BELOW);
  if (cut < 0) throw new Error(`docs/benchmarks.md lacks the line ${GENERATED_BELOW}`);
  const text = doc.slice(0, cut) + GENERATED_BELOW + "\n\n" + sections.join("\n");
  const options = await prettier.resolveConfig(DOC);
  writeFileSync(DOC, await prettier.format(text, { ...options, filepath: DOC }));
}

export async function writeReport(r: Report): Promise<void> {
  const bounds = checkBounds(r);
  process.stdout.write("\n" + renderRun("This run", r, bounds) + "\n");
  const json =
    JSON.stringify({ ...r, bounds }, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) +
    "\n";
  const files = [
    "latest.json",
    ...(hasLargeHistory(r) ? ["history-100000.json"] : []),
    ...APART.filter((a) => r[a.part] && (!a.holds || a.holds(r))).map((a) => a.file),
  ];
  for (const file of files) writeFileSync(join(RESULTS, file), json);
  await renderBenchmarksDoc();
  say(`written to bench/results/${files.join(", ")} and docs/benchmarks.md`);
  for (const c of bounds.filter((b) => !b.holds)) say(`bound not met: ${c.what} ${c.limit}: ${c.figures}`);
}
