/**
 * Sends by channel size: for each size of BENCH_CHANNEL_SIZES a channel of that many subscribers
 * (all members of one organization, `sizes.localhost`), to which 4 of them send at once in a
 * closed loop; per size the sends' throughput and latency, and what they cost in the database as
 * messaging's own counters tell it (`teamchat_db_*`, scraped from its `/metrics` before and after),
 * so that a send's cost growing with its channel's subscribers shows as a ratio to the smallest.
 */
import { config, say } from "./config";
import type { ChannelSizeFigures, ChannelSizesResult } from "./figures";
import { ok, pct, pool, type Reply } from "./http";
import { growthBy, scrape, total, type Samples } from "./metrics";
import { openOrg, retry, type NewOrg, type User } from "./org";
import { CpuMeter, MemorySampler, waitForIdle, type System } from "./system";

const SEND_TIMEOUT_MS = 60_000;
/** sends per sender before the measurement: the channel's state loaded, the code paths warm */
const WARM_UP_SENDS = 5;
/** the counters are final once two scrapes this far apart agree: a send's work may go on after its reply */
const SETTLE_MS = 500;
const SETTLE_MAX_MS = 30_000;
/**
 * Members subscribed per request: a channel of 1,000 made in one request outlasted the gateway's
 * bus timeout on a busy host, and a request the gateway gave up on may still be under way when
 * it is tried again; subscribing is idempotent, and each request stays short.
 */
const SUBSCRIBE_BATCH = 100;

/** Every service's counters, once they have stopped moving (at most SETTLE_MAX_MS). */
async function settledScrape(sys: System): Promise<Record<string, Samples>> {
  const scrapeAll = async () =>
    Object.fromEntries(
      await Promise.all(Object.entries(sys.metricsUrls).map(async ([name, url]) => [name, await scrape(url)] as const)),
    );
  const written = (all: Record<string, Samples>) =>
    Object.values(all).reduce((n, s) => n + total(s, "teamchat_db_documents_written_total"), 0);
  const giveUpAt = performance.now() + SETTLE_MAX_MS;
  let last = await scrapeAll();
  for (;;) {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const now = await scrapeAll();
    if (written(now) === written(last) || performance.now() > giveUpAt) return now;
    last = now;
  }
}

/** Channel `name` with `members` as its subscribers (made by the first request), checked through its member list. */
async function channelOf(org: NewOrg, name: string, members: User[]): Promise<void> {
  for (let from = 0; from < members.length; from += SUBSCRIBE_BATCH) {
    const principals = members.slice(from, from + SUBSCRIBE_BATCH).map((u) => u.id);
    const subscribe = { subscriptions: [{ name }], principals, send_new_subscription_messages: false };
    ok(
      `POST /users/me/subscriptions ${name}`,
      await retry(`POST /users/me/subscriptions ${name}`, () => org.owner.post("/users/me/subscriptions", subscribe)),
    );
  }
  const { stream_id: id } = ok(`GET /get_stream_id ${name}`, await org.owner.get("/get_stream_id", { stream: name }));
  const { subscribers } = ok(`GET /streams/${id}/members`, await org.owner.get(`/streams/${id}/members`));
  if ((subscribers as number[]).length !== members.length) {
    throw new Error(`channel ${name} has ${(subscribers as number[]).length} subscribers, ${members.length} expected`);
  }
}

export async function runChannelSizes(sys: System, memory: MemorySampler): Promise<ChannelSizesResult> {
  const sizes = config.channelSizes;
  const senders = config.channelSenders;
  const largest = Math.max(...sizes);
  say(`channel sizes: ${sizes.join(", ")} subscribers, ${senders} senders, ${config.channelSizeSeconds} s each`);
  memory.mark("channel sizes: seeding");
  const s0 = performance.now();
  const org = await openOrg(sys, "sizes");
  // only the senders need API keys: the others are subscribers that never open a client
  const sending = await org.createUsers("sender", senders);
  say(`[sizes] ${largest - senders} more members through POST /users...`);
  const others = await org.createUsers("member", Math.max(0, largest - senders), { keys: false });
  const members = [...sending, ...others];
  const nameOf = (size: number) => `size${size}`;
  for (const size of sizes) await channelOf(org, nameOf(size), members.slice(0, size));
  const seedSeconds = (performance.now() - s0) / 1000;
  say(`[sizes] ${members.length} members and ${sizes.length} channels in ${seedSeconds.toFixed(0)} s`);

  const figures: ChannelSizeFigures[] = [];
  for (const size of sizes) {
    const channel = nameOf(size);
    const tag = `[sizes: ${size}]`;
    let n = 0;
    const send = (from: number): Promise<Reply> =>
      org
        .as(sending[from]!)
        .post(
          "/messages",
          { type: "stream", to: channel, topic: `topic ${n % 20}`, content: `send ${n++}` },
          SEND_TIMEOUT_MS,
        );
    await pool(
      Array.from({ length: senders * WARM_UP_SENDS }, (_, i) => i % senders),
      senders,
      async (from) => ok(`${tag} POST /messages (warm-up)`, await send(from)),
    );
    await waitForIdle();
    const phase = `channel sizes: ${size}`;
    memory.mark(phase);
    const before = await settledScrape(sys);
    const cpu = new CpuMeter(sys.processes);
    cpu.start();
    say(`${tag} ${senders} senders for ${config.channelSizeSeconds} s...`);
    const replies: Reply[] = [];
    const t0 = performance.now();
    const end = t0 + config.channelSizeSeconds * 1000;
    await Promise.all(
      Array.from({ length: senders }, async (_, from) => {
        while (performance.now() < end) replies.push(await send(from));
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const after = await settledScrape(sys);
    const sent = replies.filter((r) => r.status === 200).length;
    const grown = (service: string, metric: string) => total(after[service]!, metric) - total(before[service]!, metric);
    const perSend = (v: number) => (sent ? v / sent : NaN);
    const ms = replies.map((r) => r.ms).sort((a, b) => a - b);
    const writtenBy = growthBy(
      before.messaging!,
      after.messaging!,
      "teamchat_db_documents_written_total",
      "collection",
    );
    const f: ChannelSizeFigures = {
      subscribers: size,
      sends: sent,
      errors: replies.length - sent,
      seconds,
      sendsPerSecond: sent / seconds,
      p50: pct(ms, 50),
      p99: pct(ms, 99),
      commandsPerSend: perSend(grown("messaging", "teamchat_db_command_duration_seconds_count")),
      statementsPerSend: perSend(grown("messaging", "teamchat_db_statements_total")),
      documentsWrittenPerSend: perSend(grown("messaging", "teamchat_db_documents_written_total")),
      documentsWrittenByCollection: Object.fromEntries(
        Object.entries(writtenBy)
          .sort(([, a], [, b]) => b - a)
          .map(([collection, v]) => [collection, perSend(v)]),
      ),
      documentsReturnedPerSend: perSend(grown("messaging", "teamchat_db_documents_returned_total")),
      allServicesDocumentsWrittenPerSend: perSend(
        Object.keys(sys.metricsUrls).reduce((sum, s) => sum + grown(s, "teamchat_db_documents_written_total"), 0),
      ),
      cpuMsPerSend: cpu.perRequest(sent),
      systemPeakMiB: memory.systemPeak(phase).physical,
    };
    say(
      `  ${f.sendsPerSecond.toFixed(1)} sends/s, p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms, ${f.errors} errors; ` +
        `messaging per send: ${f.commandsPerSend.toFixed(1)} commands, ${f.statementsPerSend.toFixed(1)} statements, ` +
        `${f.documentsWrittenPerSend.toFixed(1)} documents written (${Object.entries(f.documentsWrittenByCollection)
          .map(([c, v]) => `${c} ${v.toFixed(1)}`)
          .join(", ")})`,
    );
    figures.push(f);
  }
  memory.mark("after the channel sizes");
  return { senders, seconds: config.channelSizeSeconds, seedSeconds, sizes: figures };
}
