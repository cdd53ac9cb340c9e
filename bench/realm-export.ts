/**
 * The realm export (`--export [MESSAGES]`, BENCH_EXPORT): one organization whose channel holds
 * that many messages from its owner (100,000 by default, seeded as bench/team.ts does) with two
 * more members, so 3 receivers a message; a full export through POST /export/realm, polled until
 * GET /export/realm says it is done. Figures: the time from the request to the finished tarball,
 * messaging's resident memory before and at its peak meanwhile (sampled every 100 ms), its
 * database work and every process's CPU meanwhile; then the tarball is downloaded and its message
 * files counted, so that an export that leaves messages out fails rather than looks fast.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { basicAuth } from "@teamchat/shared/src/testing/api";
import { config, say } from "./config";
import type { RealmExportResult } from "./figures";
import { ok, sleep, type Http } from "./http";
import { scrape, total } from "./metrics";
import type { User } from "./org";
import { CpuMeter, MemorySampler, waitForIdle, type System } from "./system";
import { seedTeam } from "./team";

const POLL_MS = 250;
const RSS_SAMPLE_MS = 100;
/** An export still pending after this long is given up (the figure would be far past any bound). */
const GIVE_UP_SECONDS = 1800;

/** Resident memory of a process, in MiB; the run stops when the process is gone (a crash: its log is above). */
const rssMiB = (pid: number): number => {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    throw new Error(`process ${pid} exited during the export`);
  }
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
};

/** The highest RSS of a process from now until `stop()`, sampled every RSS_SAMPLE_MS. */
function rssPeak(pid: number) {
  const before = rssMiB(pid);
  let peak = before;
  let gone: Error | undefined;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch (err) {
      gone = err as Error;
    }
  }, RSS_SAMPLE_MS);
  return {
    before,
    /** throws once the process is gone */
    check: () => {
      if (gone) throw gone;
    },
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/**
 * Requests a full export as `owner` and waits until it is done, calling `check` at each poll (it
 * throws to stop waiting); the seconds it took and its URL (null: it failed).
 */
async function exportRealm(owner: Http, check: () => void): Promise<{ seconds: number; url: string | null }> {
  const t0 = performance.now();
  const { id } = ok("POST /export/realm", await owner.post("/export/realm", { export_type: 2 })) as { id: number };
  for (;;) {
    const { exports } = ok("GET /export/realm", await owner.get("/export/realm", {})) as {
      exports: Array<{ id: number; pending: boolean; export_url: string | null }>;
    };
    const row = exports.find((e) => e.id === id);
    const seconds = (performance.now() - t0) / 1000;
    if (row && !row.pending) return { seconds, url: row.export_url };
    check();
    if (seconds > GIVE_UP_SECONDS) throw new Error(`the export is still pending after ${GIVE_UP_SECONDS} s`);
    await sleep(POLL_MS);
  }
}

/** The tarball at `url` as `owner` downloads it: its messages and their user rows, file by file, and its size. */
async function countTarball(
  owner: Http & { creds: User },
  url: string,
): Promise<{ messages: number; userMessages: number; bytes: number }> {
  const counts = { messages: 0, userMessages: 0, bytes: 0 };
  const tar = extract();
  const reading = (async () => {
    for await (const entry of tar) {
      const chunks: Buffer[] = [];
      const isMessages = /\/messages-\d+\.json$/.test(entry.header.name);
      for await (const c of entry) if (isMessages) chunks.push(c as Buffer);
      if (!isMessages) continue;
      const file = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown[]>;
      counts.messages += file.zerver_message?.length ?? 0;
      counts.userMessages += file.zerver_usermessage?.length ?? 0;
    }
  })();
  const downloading = new Promise<void>((resolve, reject) => {
    const headers = { host: owner.host, authorization: basicAuth(owner.creds) };
    const req = request({ host: "127.0.0.1", port: owner.port, path: new URL(url).pathname, headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
      }
      res.on("data", (c: Buffer) => (counts.bytes += c.length));
      pipeline(res, createGunzip(), tar).then(resolve, reject);
    });
    req.on("error", reject);
    req.end();
  });
  await Promise.all([downloading, reading]).catch((err: unknown) => {
    tar.destroy();
    throw err;
  });
  return counts;
}

export async function runRealmExport(sys: System, memory: MemorySampler): Promise<RealmExportResult> {
  const history = config.realmExport;
  const members = config.realmExportMembers;
  memory.mark("realm export: seeding");
  const team = await seedTeam(sys, "export", { members, unread: 0, history });
  const owner = team.org.owner;
  // the owner's own direct messages go into the full export too
  ok("PATCH /settings", await owner.call("PATCH", "/settings", { allow_private_data_export: true }, 30_000));
  say("[export] waiting for the system to go idle after seeding...");
  await waitForIdle();

  const messaging = sys.processes.find((p) => p.name === "messaging")!;
  const phase = "realm export";
  memory.mark(phase);
  const dbBefore = await scrape(sys.metricsUrls.messaging!);
  const cpu = new CpuMeter(sys.processes);
  cpu.start();
  const rss = rssPeak(messaging.pid);
  say(`[export] POST /export/realm of ${history} messages (${members + 1} receivers each)...`);
  let done: { seconds: number; url: string | null };
  let rssPeakMiB: number;
  try {
    done = await exportRealm(owner, rss.check);
  } finally {
    rssPeakMiB = rss.stop();
  }
  const cpuMs = cpu.perRequest(1);
  const dbAfter = await scrape(sys.metricsUrls.messaging!);
  memory.mark("after the realm export");
  if (!done.url) throw new Error("the export failed: read messaging's log above");

  const tarball = await countTarball(owner, done.url);
  if (tarball.messages < history) {
    throw new Error(`the tarball holds ${tarball.messages} messages of the ${history} in the organization`);
  }
  const grown = (metric: string) => total(dbAfter, metric) - total(dbBefore, metric);
  const result: RealmExportResult = {
    history,
    members,
    seedSeconds: team.seedSeconds,
    seconds: done.seconds,
    messages: tarball.messages,
    userMessages: tarball.userMessages,
    tarballMiB: tarball.bytes / 2 ** 20,
    rssBeforeMiB: rss.before,
    rssPeakMiB,
    dbCommands: grown("teamchat_db_command_duration_seconds_count"),
    documentsReturned: grown("teamchat_db_documents_returned_total"),
    cpuSeconds: Object.fromEntries(Object.entries(cpuMs).map(([p, ms]) => [p, ms / 1000])),
    systemPeakMiB: memory.systemPeak(phase).physical,
  };
  say(
    `[export] ${result.seconds.toFixed(1)} s; ${result.messages} messages and ${result.userMessages} user rows in ` +
      `${result.tarballMiB.toFixed(1)} MiB; messaging RSS ${rss.before.toFixed(0)} MiB before, ` +
      `${rssPeakMiB.toFixed(0)} MiB at its peak (+${(rssPeakMiB - rss.before).toFixed(0)} MiB); ` +
      `${result.dbCommands} database commands, ${result.documentsReturned} documents returned`,
  );
  return result;
}
