/**
 * The soak: the mixed load's simulated users (mixed.ts) for `--soak MINUTES`, their sends growing
 * the history, reported every minute (throughput, latency, errors, each process's RSS, the
 * messages stored), so that a slowdown or a leak that takes a long run to show is seen.
 */
import { spawn } from "node:child_process";
import { config, say, soakVariant } from "./config";
import type { SoakMinute, SoakResult } from "./figures";
import { mixedLoadOf } from "./mixed";
import type { Org } from "./org";
import { openMessageCount } from "./seed";
import { CpuMeter, type MemorySampler, type System } from "./system";

export async function runSoak(
  sys: System,
  memory: MemorySampler,
  org: Org,
  users: number,
  usersFrom: string,
): Promise<SoakResult> {
  const minutes: SoakMinute[] = [];
  const stored = await openMessageCount(sys.mongoUrl, `${sys.dbPrefix}_messaging`);
  let pollErrorsBefore = 0;
  // one core taken by a busy loop: the system has a third of the 2-core host's spare capacity
  const hog = config.soakCpuHog ? spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }) : undefined;
  try {
    say(
      `[${org.subdomain}] soak: ${users} users (${usersFrom}) for ${config.soakMinutes} min` +
        `${soakVariant(config.soakShape, config.soakCpuHog)}...`,
    );
    memory.takeWindow();
    const cpu = new CpuMeter(sys.processes);
    const total = await mixedLoadOf(org).run(
      users,
      config.soakMinutes * 60,
      {
        seconds: 60,
        // not the users' creation and registration before
        started: () => cpu.start(),
        report: async (w, pollErrors) => {
          const m: SoakMinute = {
            minute: minutes.length + 1,
            rps: w.requests / w.seconds,
            p50: w.p50,
            p99: w.p99,
            byAction: w.byAction,
            errors: w.errors,
            errorsBy: w.errorsBy,
            pollErrors: pollErrors - pollErrorsBefore,
            messages: await stored.read(),
            rssMiB: ((peaks) => Object.fromEntries(sys.processes.map((p, i) => [p.name, peaks[i] ?? NaN])))(
              memory.takeWindow(),
            ),
            cpuSeconds: cpu.lap(),
          };
          pollErrorsBefore = pollErrors;
          minutes.push(m);
          say(
            `  minute ${m.minute}: ${m.rps.toFixed(1)} actions/s, p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms, ` +
              `${m.errors} errors${m.errors ? ` (${JSON.stringify(m.errorsBy)})` : ""}; p99 by action: ` +
              Object.entries(w.byAction)
                .map(([action, a]) => `${action} ${a.p99.toFixed(0)}`)
                .join(", ") +
              `; ${m.pollErrors} long-poll errors, ${m.messages} messages stored; RSS MiB: ` +
              Object.entries(m.rssMiB)
                .map(([name, mib]) => `${name} ${mib.toFixed(0)}`)
                .join(", ") +
              "; CPU s: " +
              Object.entries(m.cpuSeconds ?? {})
                .map(([name, s]) => `${name} ${s.toFixed(1)}`)
                .join(", "),
          );
        },
      },
      config.soakShape,
    );
    return {
      users,
      usersFrom,
      history: org.size,
      shape: config.soakShape,
      cpuHog: config.soakCpuHog,
      minutes,
      total,
    };
  } finally {
    hog?.kill();
    await stored.close();
  }
}
