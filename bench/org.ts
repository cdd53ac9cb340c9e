/**
 * One organization per history size: its users, channels and subscriptions made
 * through the API (they are few), its history seeded mostly through bench/seed.ts
 * and the newest messages through POST /messages, then checked through GET /messages.
 */
import { config, say } from "./config";
import { Http, ok, pool, type Creds } from "./http";
import { bulkSeed, SchemaDrift } from "./seed";
import type { System } from "./system";

export type User = Creds & { id: number };

export interface Org {
  size: number;
  subdomain: string;
  owner: Http & { creds: User };
  /** `http` as another user */
  as(user: User): Http;
  /** the 10-subscriber channel holding the history */
  benchChannel: string;
  /** subscribed to 50 channels, with `unread` unread messages */
  reader: User;
  unread: number;
  /** the newest message of the history */
  lastId: number;
  /** Creates `n` users (through POST /users and POST /fetch_api_key). */
  createUsers(prefix: string, n: number): Promise<User[]>;
}

const topicOf = (n: number) => `topic ${n % 20}`;
const contentOf = (n: number) => `history ${n}`;

export async function setUpOrg(sys: System, size: number): Promise<Org> {
  const subdomain = `h${size}`;
  const host = `${subdomain}.localhost:${sys.port}`;
  say(`[${subdomain}] organization ${subdomain} (history ${size}): users and channels through the API...`);
  const { owner: ownerCreds } = await sys.createOrganization(subdomain);
  const anon = new Http(sys.port, host, null);
  const owner = anon.as(ownerCreds) as Http & { creds: User };
  const as = (u: User) => anon.as(u);

  const createUsers = async (prefix: string, n: number): Promise<User[]> =>
    pool(
      Array.from({ length: n }, (_, i) => i + 1),
      4,
      async (i) => {
        const email = `${prefix}${i}@${subdomain}.bench.example`;
        const password = `pw-${prefix}-${i}-bench`;
        const made = ok(
          `POST /users ${email}`,
          await owner.post("/users", { email, password, full_name: `${prefix} ${i}` }),
        );
        const key = ok(
          `POST /fetch_api_key ${email}`,
          await anon.post("/fetch_api_key", { username: email, password }),
        );
        return { email, apiKey: key.api_key as string, id: made.user_id as number };
      },
    );

  const members = await createUsers("member", config.subscribers - 2);
  const [reader] = await createUsers("reader", 1);
  const benchChannel = "bench";
  ok(
    "POST /channels/create bench",
    await owner.post("/channels/create", {
      name: benchChannel,
      subscribers: [ownerCreds.id, reader!.id, ...members.map((u) => u.id)],
    }),
  );
  // the reader's other 49 channels (with the owner, so that they are not empty of subscribers)
  await pool(
    Array.from({ length: config.readerChannels - 1 }, (_, i) => i + 1),
    4,
    async (i) =>
      ok(
        `POST /channels/create c${i}`,
        await owner.post("/channels/create", { name: `c${i}`, subscribers: [ownerCreds.id, reader!.id] }),
      ),
  );

  // History: message 1 through the API (the template of the bulk path), 2..size-tail in bulk, the tail through the API.
  const unread = Math.min(config.unread, size);
  const tail = Math.min(config.apiTail, size - 1);
  const bulk = size - 1 - tail;
  const send = async (n: number) =>
    ok(
      `POST /messages (history ${n})`,
      await owner.post("/messages", { type: "stream", to: benchChannel, topic: topicOf(n), content: contentOf(n) }),
    ).id as number;
  const firstId = await send(1);
  const t0 = Date.now();
  let bulkIds = { firstId: 0, lastId: -1 };
  if (bulk > 0) {
    say(`[${subdomain}] seeding ${bulk} messages through the bulk path (bench/seed.ts)...`);
    const dbName = `${sys.dbPrefix}_messaging`;
    bulkIds = await bulkSeed({
      mongoUrl: sys.mongoUrl,
      dbName,
      templateMessageId: firstId,
      count: bulk,
      content: (i) => contentOf(i + 1),
      topic: (i) => topicOf(i + 1),
      // the reader's newest `unread` messages lack "read"; everyone else has read the bulk history
      flags: (userId, i) => (userId === reader!.id && i + 1 > size - unread ? [] : ["read"]),
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
  await verifyHistory(as(reader!), benchChannel, size, tail, lastId, unread, expectedContent);
  return { size, subdomain, owner, as, benchChannel, reader: reader!, unread, lastId, createUsers };
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
