/**
 * What write safety costs a send: POST /messages to a 10-subscriber channel,
 * one at a time (latency) and 16 at a time (throughput), on the system as
 * `npm run bench` starts it. The embedded database is a single server by
 * default; with `--replica-set` it is SecantusDB as a one-member replica set,
 * so the services write at majority and store each message with its rows in a
 * transaction.
 *
 *   npx tsx bench/send-latency.ts [--replica-set] [--sends 300]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startMongo } from "../scripts/lib/infra";
import { say } from "./config";
import { Http, ok, pool, sleep } from "./http";
import { startSystem } from "./system";

const { values } = parseArgs({
  options: { "replica-set": { type: "boolean", default: false }, sends: { type: "string", default: "300" } },
});
const sends = Number(values.sends);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * `work`, tried again while a service is not serving yet: the gateway's health
 * check answers once every service listens on the bus, before each has
 * registered its handlers.
 */
async function untilServing<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if ((err as { status?: number }).status !== 503 || attempt === 50) throw err;
      await sleep(200);
    }
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-send-latency-"));
  // on disk with each commit synced, as provisionInfra starts the embedded default
  const replicaSet = values["replica-set"]
    ? await startMongo({ dataDir, replicaSet: true, progress: say }).then((db) => {
        process.env.MONGO_URL = db.url;
        return db;
      })
    : undefined;
  const sys = await startSystem();
  try {
    const subdomain = "latency";
    const { owner: creds } = await untilServing(() => sys.createOrganization(subdomain));
    const owner = new Http(sys.port, `${subdomain}.localhost:${sys.port}`, creds);
    const members = await pool(
      Array.from({ length: 9 }, (_, i) => i + 1),
      4,
      async (i) =>
        ok(
          "POST /users",
          await owner.post("/users", {
            email: `member${i}@${subdomain}.bench.example`,
            password: `pw-member-${i}-bench`,
            full_name: `member ${i}`,
          }),
        ).user_id as number,
    );
    ok("POST /channels/create", await owner.post("/channels/create", { name: "bench", subscribers: members }));
    const send = async (n: number) => {
      const r = await owner.post("/messages", {
        type: "stream",
        to: "bench",
        topic: `topic ${n % 20}`,
        content: `m ${n}`,
      });
      ok("POST /messages", r);
      return r.ms;
    };
    for (let n = 0; n < 50; n++) await send(n);
    const one: number[] = [];
    for (let n = 0; n < sends; n++) one.push(await send(n));
    one.sort((a, b) => a - b);
    const t0 = Date.now();
    await pool(
      Array.from({ length: sends * 2 }, (_, i) => i),
      16,
      send,
    );
    const perSecond = (sends * 2 * 1000) / (Date.now() - t0);
    say(
      `${replicaSet ? "one-member replica set (majority, transactions)" : "single server"}: ` +
        `one at a time p50 ${percentile(one, 0.5).toFixed(1)} ms, p90 ${percentile(one, 0.9).toFixed(1)} ms, ` +
        `mean ${(one.reduce((a, b) => a + b, 0) / one.length).toFixed(1)} ms; 16 at a time ${perSecond.toFixed(0)} sends/s`,
    );
  } finally {
    await sys.stop();
    await replicaSet?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
