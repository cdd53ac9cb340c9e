/**
 * One organization per history size: its users, channels and subscriptions made
 * through the API (they are few), its history seeded mostly through bench/seed.ts
 * and the newest messages through POST /messages, then checked through GET /messages.
 */
import { config, say } from "./config";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { Http, ok, pool, sleep, type Reply } from "./http";
import { bulkSeed, SchemaDrift } from "./seed";
import type { System } from "./system";

export type User = Credentials & { id: number };

export interface Org {
  size: number;
  subdomain: string;
  owner: Http & { creds: User };
  /** `http` as another user */
  as(user: User): Http;
  /** the 10-subscriber channel POST /messages sends to */
  benchChannel: string;
  /** the same subscribers, each of whom (but the sender) is away and has email notifications on for it */
  notifiedChannel: string;
  /** the channel holding the history (its sender and the reader) */
  historyChannel: string;
  /** event delivery: the users holding long-polls, the receiver and its sender */
  crowd: User[];
  receiver: User;
  pinger: User;
  /** subscribed to 50 channels, with `unread` unread messages */
  reader: User;
  unread: number;
  /** the newest message of the history */
  lastId: number;
  /** search operands over the history: a word of one of its oldest messages only, and a word of every message */
  searchWords: { rare: string; common: string };
  /**
   * Creates `n` users (through POST /users and POST /fetch_api_key); with `keys: false`, without
   * fetching their API keys (`apiKey` ""), for users that never call the API: each key costs a
   * password hash as long as the creation's own.
   */
  createUsers(prefix: string, n: number, opts?: { keys?: boolean }): Promise<User[]>;
  /** the channel's POST /channels/create reply */
  createChannel(name: string, subscribers: number[]): Promise<Record<string, unknown>>;
  /** Turns the channel's email notifications on for each of `users` (as that user). */
  emailFromChannel(channelId: number, users: User[]): Promise<void>;
}

/**
 * A setup request, tried again while the server is overloaded (no answer, or 5xx):
 * after a heavy scenario the server may take a while to drain its backlog.
 */
export async function retry(what: string, fn: () => Promise<Reply>): Promise<Reply> {
  let r = await fn();
  for (let wait = 2000; (r.status === 0 || r.status >= 500) && wait <= 32_000; wait *= 2) {
    say(
      `  ${what}: ${r.status || "no answer"} (${String(r.body.msg).slice(0, 100)}); trying again in ${wait / 1000} s`,
    );
    await sleep(wait);
    r = await fn();
  }
  return r;
}

const TOPICS = 20;
const topicOf = (n: number) => `topic ${n % TOPICS}`;
/** the one message with a link: has:link's match in the whole history */
const LINKED = TOPICS;
const linkOf = (n: number) => `https://example.com/${n}`;
const contentOf = (n: number) => (n === LINKED ? `history ${n} ${linkOf(n)}` : `history ${n}`);
/** contentOf(n) as the Markdown renderer stores it: the bulk path writes it directly */
const renderedOf = (n: number) =>
  n === LINKED ? `<p>history ${n} <a href="${linkOf(n)}">${linkOf(n)}</a></p>` : `<p>history ${n}</p>`;
/** "history" is in every message's content; the number TOPICS only in message TOPICS's (topics stop below it) */
const searchWords = { rare: String(TOPICS), common: "history" };

/** A new organization and what setting it up through the API takes. */
export type NewOrg = Pick<Org, "subdomain" | "owner" | "as" | "createUsers" | "createChannel" | "emailFromChannel">;

/** Creates organization `subdomain` (its owner over the bus) and the API clients that fill it. */
export async function openOrg(sys: System, subdomain: string): Promise<NewOrg> {
  const host = `${subdomain}.localhost:${sys.port}`;
  const { owner: ownerCreds } = await sys.createOrganization(subdomain);
  const anon = new Http(sys.port, host, null);
  const owner = anon.as(ownerCreds) as Http & { creds: User };
  const as = (u: User) => anon.as(u);

  const createUsers = async (prefix: string, n: number, { keys = true } = {}): Promise<User[]> =>
    pool(
      Array.from({ length: n }, (_, i) => i + 1),
      4,
      async (i) => {
        const email = `${prefix}${i}@${subdomain}.bench.example`;
        const password = `pw-${prefix}-${i}-bench`;
        let made = await retry(`POST /users ${email}`, () =>
          owner.post("/users", { email, password, full_name: `${prefix} ${i}` }),
        );
        // an earlier attempt that timed out may have created the user
        if (made.status === 400 && /already|in use/i.test(String(made.body.msg))) {
          made = await retry(`GET /users/${email}`, () => owner.get(`/users/${encodeURIComponent(email)}`));
        }
        const madeBody = ok(`POST /users ${email}`, made);
        const userId = (madeBody.user_id ?? (madeBody.user as { user_id: number } | undefined)?.user_id) as number;
        if (!keys) return { email, apiKey: "", id: userId };
        const key = ok(
          `POST /fetch_api_key ${email}`,
          await retry(`POST /fetch_api_key ${email}`, () => anon.post("/fetch_api_key", { username: email, password })),
        );
        return { email, apiKey: key.api_key as string, id: userId };
      },
    );

  const createChannel = async (name: string, subscribers: number[]) => {
    const made = await retry(`POST /channels/create ${name}`, () =>
      owner.post("/channels/create", { name, subscribers }),
    );
    // an earlier attempt that timed out may have created the channel, with these subscribers
    if (made.status === 400 && /already exists/i.test(String(made.body.msg))) {
      const found = ok(
        `GET /get_stream_id ${name}`,
        await retry(`GET /get_stream_id ${name}`, () => owner.get(`/get_stream_id?stream=${encodeURIComponent(name)}`)),
      );
      return { result: "success", msg: "", id: found.stream_id };
    }
    return ok(`POST /channels/create ${name}`, made);
  };
  const emailFromChannel = async (channelId: number, users: User[]) => {
    await pool(users, 4, async (u) =>
      ok(
        "POST /users/me/subscriptions/properties",
        await retry("POST /users/me/subscriptions/properties", () =>
          as(u).post("/users/me/subscriptions/properties", {
            subscription_data: [{ stream_id: channelId, property: "email_notifications", value: true }],
          }),
        ),
      ),
    );
  };
  return { subdomain, owner, as, createUsers, createChannel, emailFromChannel };
}

export async function setUpOrg(sys: System, size: number): Promise<Org> {
  const subdomain = `h${size}`;
  say(`[${subdomain}] organization ${subdomain} (history ${size}): users and channels through the API...`);
  const { owner, as, createUsers, createChannel, emailFromChannel } = await openOrg(sys, subdomain);
  const ownerCreds = owner.creds;
  const members = await createUsers("member", config.subscribers - 2);
  const [reader] = await createUsers("reader", 1);
  // POST /messages goes to `bench` (10 subscribers); the history is in `history`, whose
  // subscribers are its sender and the reader (docs/adr/0030-bench-method.md).
  await createChannel("bench", [ownerCreds.id, reader!.id, ...members.map((u) => u.id)]);
  // Nobody ever opens a client in this organization, so these subscribers are away (Zulip's idle): every
  // message to `notified` queues a missed-message email for each of them.
  const notified = (await createChannel("notified", [ownerCreds.id, reader!.id, ...members.map((u) => u.id)])) as {
    id: number;
  };
  await emailFromChannel(notified.id, [reader!, ...members]);
  const historyChannel = "history";
  await createChannel(historyChannel, [ownerCreds.id, reader!.id]);
  // the reader's other 48 channels (with the owner, so that they are not empty of subscribers)
  await pool(
    Array.from({ length: config.readerChannels - 2 }, (_, i) => i + 1),
    4,
    (i) => createChannel(`c${i}`, [ownerCreds.id, reader!.id]),
  );
  // event delivery's users: a crowd of long-polls in one channel, a receiver and its sender in another
  say(`[${subdomain}] ${config.crowd + 2} users for event delivery...`);
  const crowd = await createUsers("crowd", config.crowd);
  const [receiver, pinger] = await createUsers("latency", 2);
  await createChannel("crowd", [ownerCreds.id, ...crowd.map((u) => u.id)]);
  await createChannel("latency", [receiver!.id, pinger!.id]);

  // History: message 1 through the API (the template of the bulk path), 2..size-tail in bulk, the tail through the API.
  const unread = Math.min(config.unread, size);
  const tail = Math.min(config.apiTail, size - 1);
  const bulk = size - 1 - tail;
  const send = async (n: number) =>
    ok(
      `POST /messages (history ${n})`,
      await owner.post("/messages", { type: "stream", to: historyChannel, topic: topicOf(n), content: contentOf(n) }),
    ).id as number;
  const firstId = await send(1);
  const t0 = Date.now();
  let bulkIds = { firstId: 0, lastId: -1 };
  if (bulk > 0) {
    say(`[${subdomain}] seeding ${bulk} messages through the bulk path (bench/seed.ts)...`);
    const dbName = `${sys.dbPrefix}_messaging`;
    bulkIds = await bulkSeed({
      mongoUrl: sys.mongoUrl,
      searchUrl: sys.searchUrl,
      dbName,
      templateMessageId: firstId,
      count: bulk,
      content: (i) => contentOf(i + 1),
      rendered: (i) => renderedOf(i + 1),
      topic: (i) => topicOf(i + 1),
      // the reader's newest `unread` messages are unread; everyone else has read the bulk history
      readThrough: (userId) => (userId === reader!.id ? Math.max(0, size - unread - 1) : bulk),
      progress: say,
    });
  }
  say(`[${subdomain}] sending the newest ${tail} messages through POST /messages...`);
  let sent = 0;
  const tailIds = await pool(
    Array.from({ length: tail }, (_, i) => size - tail + 1 + i),
    8,
    async (n) => {
      const id = await send(n);
      if (++sent % 50 === 0) say(`  api: ${sent}/${tail}`);
      return id;
    },
  );
  const lastId = Math.max(...tailIds, firstId);
  say(
    `[${subdomain}] history of ${size} messages in ${((Date.now() - t0) / 1000).toFixed(0)} s; checking GET /messages...`,
  );
  // message n of the bulk part has id bulkIds.firstId + n - 2; the tail's ids are in the order the sends landed
  const expectedContent = (id: number) =>
    id >= bulkIds.firstId && id <= bulkIds.lastId ? contentOf(id - bulkIds.firstId + 2) : undefined;
  await verifyHistory(as(reader!), historyChannel, size, tail, lastId, unread, expectedContent);
  return {
    size,
    subdomain,
    owner,
    as,
    benchChannel: "bench",
    notifiedChannel: "notified",
    historyChannel,
    reader: reader!,
    unread,
    lastId,
    searchWords,
    crowd,
    receiver: receiver!,
    pinger: pinger!,
    createUsers,
    createChannel,
    emailFromChannel,
  };
}

/** The newest messages as GET /messages returns them must be the ones seeded, with the reader's flags. */
async function verifyHistory(
  reader: Http,
  channel: string,
  size: number,
  tail: number,
  lastId: number,
  unread: number,
  expectedContent: (id: number) => string | undefined,
) {
  const want = Math.min(size, tail + 50);
  const r = await reader.get(
    "/messages",
    { anchor: "newest", num_before: want, num_after: 0, narrow: [{ operator: "channel", operand: channel }] },
    300_000,
  );
  if (r.status === 0) {
    throw new Error(
      `GET /messages to check the seeded history: ${r.body.msg} (the server is too slow at ${size} messages?)`,
    );
  }
  const body = ok("GET /messages (check of the seeded history)", r);
  const msgs = body.messages as Array<{ id: number; content: string; flags: string[] }>;
  const problems: string[] = [];
  if (msgs.length !== want) problems.push(`${msgs.length} messages returned, ${want} expected`);
  if (msgs.at(-1)?.id !== lastId) problems.push(`newest id ${msgs.at(-1)?.id}, expected ${lastId}`);
  const bulkSeen = msgs.filter((m) => expectedContent(m.id) !== undefined);
  if (size - 1 > tail && !bulkSeen.length) problems.push("none of the bulk-seeded messages is among them");
  for (const m of bulkSeen) {
    if (m.content !== `<p>${expectedContent(m.id)}</p>`) {
      problems.push(`message ${m.id}: content ${JSON.stringify(m.content)}, expected <p>${expectedContent(m.id)}</p>`);
      break;
    }
  }
  const readFlags = msgs.filter((m) => m.flags.includes("read")).length;
  const wantRead = Math.max(0, want - unread);
  if (readFlags !== wantRead) problems.push(`${readFlags} of them read by the reader, expected ${wantRead}`);
  if (problems.length) {
    throw new SchemaDrift(
      `the bulk-seeded history does not read back through GET /messages:\n  ${problems.join("\n  ")}\n` +
        "  messaging's storage no longer matches bench/seed.ts: compare it with services/messaging/src/messages/message.schema.ts and user-messages/user-message.schema.ts",
    );
  }
  say(`  GET /messages returns the newest ${want} seeded messages as written (${(r.ms / 1000).toFixed(1)} s)`);
}
