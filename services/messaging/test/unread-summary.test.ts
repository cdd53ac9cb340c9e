/**
 * The unread summary (unread buckets) against the rows it summarizes: random
 * sends, flag changes, edits, moves and deletions through two messaging
 * instances, then every user's stored summary compared with one recomputed
 * here from the rows and messages, and with register's unread_msgs; then the
 * summaries dropped and rebuilt from the rows at start-up.
 */
import { messaging, notifications } from "@teamchat/shared";
import { mongo } from "mongoose";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let sys: TestSystem;
let people: TestUser[];
const channels: Array<{ id: number; name: string }> = [];

beforeAll(async () => {
  // rows folded into the summaries soon and at any age, so that the random operations meet every state
  sys = await startSystem({
    env: { RATE_LIMIT_REQUESTS: "100000", UNREAD_FOLD_ROWS: "4", UNREAD_FOLD_MARGIN_SECONDS: "0" },
  });
  people = [sys.owner];
  for (const name of ["Alice", "Bob", "Carol"]) people.push(await sys.makeUser(name, 400, name));
  for (const name of ["one", "two"]) {
    channels.push({
      id: await createChannel(
        sys,
        sys.owner,
        name,
        people.map((p) => p.userId),
      ),
      name,
    });
  }
  await sys.startService("messaging");
}, 60_000);
afterAll(() => sys?.stop());

async function withDb<T>(use: (db: mongo.Db) => Promise<T>): Promise<T> {
  const client = await mongo.MongoClient.connect(sys.config.MONGO_URL);
  try {
    return await use(client.db(`${sys.config.MONGO_DB_PREFIX}_messaging`));
  } finally {
    await client.close();
  }
}

/** One unread message as both sides describe it: id, place, mentions. */
type Entry = string;
const entry = (id: number, place: string, mentioned: boolean, direct: boolean): Entry =>
  `${id} ${place} ${mentioned ? "m" : "-"}${direct ? "d" : "-"}`;

/** Where a message is, as the summary names a conversation. */
const placeOf = (m: mongo.Document) =>
  m.type === "private"
    ? `d${[...(m.receivers as number[])].sort((a, b) => a - b).join(",")}`
    : `s${m.streamId}:${(m.topic as string).toLowerCase()}`;

/** The unread entries of these rows, placed by their messages. */
async function entriesOfRows(db: mongo.Db, rows: mongo.Document[]): Promise<Map<number, Entry[]>> {
  const out = new Map<number, Entry[]>();
  const ids = [...new Set(rows.map((r) => r.messageId as number))];
  const messages = new Map(
    (
      await db
        .collection("messages")
        .find({ realmId: sys.realm.id, messageId: { $in: ids } })
        .toArray()
    ).map((m) => [m.messageId as number, m]),
  );
  for (const r of rows) {
    const flags = r.flags as string[];
    const list = out.get(r.userId) ?? out.set(r.userId, []).get(r.userId)!;
    const mentioned = flags.some((f) => f.endsWith("mentioned"));
    list.push(entry(r.messageId, placeOf(messages.get(r.messageId)!), mentioned, flags.includes("mentioned")));
  }
  return out;
}

/**
 * Each user's summary as stored: their buckets (repeats dropped), and the
 * unread rows newer than what the buckets hold (not folded in yet).
 */
const storedSummaries = () =>
  withDb(async (db) => {
    const out = new Map<number, Entry[]>();
    const folded = new Map<number, number>();
    for (const b of await db.collection("unreadbuckets").find({ realmId: sys.realm.id }).toArray()) {
      if (b.block === -1) {
        folded.set(b.userId, b.foldedThrough ?? 0);
        const list = out.get(b.userId) ?? out.set(b.userId, []).get(b.userId)!;
        for (const id of b.starred ?? []) list.push(`${id} starred`);
        continue;
      }
      const place = b.streamId === null ? `d${b.participants.join(",")}` : `s${b.streamId}:${b.topic.toLowerCase()}`;
      const list = out.get(b.userId) ?? out.set(b.userId, []).get(b.userId)!;
      for (const id of new Set<number>(b.ids)) {
        list.push(entry(id, place, b.mentions.includes(id), b.direct.includes(id)));
      }
    }
    const rows = await db.collection("usermessages").find({ realmId: sys.realm.id, unread: true }).toArray();
    const newer = rows.filter((r) => r.messageId > (folded.get(r.userId) ?? 0));
    for (const [userId, entries] of await entriesOfRows(db, newer)) {
      const list = out.get(userId) ?? out.set(userId, []).get(userId)!;
      const have = new Set(list.map((e) => e.split(" ")[0]));
      list.push(...entries.filter((e) => !have.has(e.split(" ")[0])));
    }
    return out;
  });

/** Each user's summary as the rows say it should be: their unread messages, and their starred ones. */
const recomputedSummaries = () =>
  withDb(async (db) => {
    const out = await entriesOfRows(
      db,
      await db.collection("usermessages").find({ realmId: sys.realm.id, unread: true }).toArray(),
    );
    for (const r of await db.collection("usermessages").find({ realmId: sys.realm.id, flags: "starred" }).toArray()) {
      (out.get(r.userId) ?? out.set(r.userId, []).get(r.userId)!).push(`${r.messageId} starred`);
    }
    return out;
  });

const sorted = (m: Map<number, Entry[]>) =>
  Object.fromEntries(people.map((p) => [p.userId, [...(m.get(p.userId) ?? [])].sort()]));

/** The stored summaries match the rows once the background folds under way have finished (a moment). */
async function expectSummariesMatchRows(): Promise<void> {
  let stored = sorted(await storedSummaries());
  for (let tries = 0; tries < 20; tries++) {
    if (JSON.stringify(stored) === JSON.stringify(sorted(await recomputedSummaries()))) break;
    await new Promise((r) => setTimeout(r, 100));
    stored = sorted(await storedSummaries());
  }
  expect(stored).toEqual(sorted(await recomputedSummaries()));
}

/** register's unread message ids of a user (through either instance). */
async function registeredUnread(user: TestUser): Promise<number[]> {
  const state = (await sys.call(
    notifications.registerQueue,
    { fetch_event_types: ["message", "update_message_flags"] },
    user,
  )) as unknown as {
    unread_msgs: {
      streams: Array<{ unread_message_ids: number[] }>;
      pms: Array<{ unread_message_ids: number[] }>;
      huddles: Array<{ unread_message_ids: number[] }>;
    };
  };
  const u = state.unread_msgs;
  return [...u.streams, ...u.pms, ...u.huddles].flatMap((g) => g.unread_message_ids).sort((a, b) => a - b);
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    some: <T>(xs: readonly T[]): T[] => xs.filter(() => next() < 0.3),
  };
}

describe("the unread summary", () => {
  it("matches the rows after random operations through two instances, and register shows it", async () => {
    const r = random(20261127);
    const sent: Array<{ id: number; sender: TestUser }> = [];
    const topics = ["alpha", "Beta", "gamma"];
    const ops = [
      async () => {
        const sender = r.pick(people);
        const content = r.pick(["plain", "@**Bob** look", "@**all** news", "hello @**Alice**"]);
        const ch = r.pick(channels);
        const to = { type: "stream" as const, to: ch.name, topic: r.pick(topics), content };
        sent.push({ id: (await sys.call(messaging.sendMessage, to, sender)).id, sender });
      },
      async () => {
        const sender = r.pick(people);
        const others = r.some(people.filter((p) => p !== sender));
        const to = others.length ? others : [r.pick(people.filter((p) => p !== sender))];
        const dm = { type: "private" as const, to: to.map((p) => p.userId), content: "psst @**Carol**" };
        sent.push({ id: (await sys.call(messaging.sendMessage, dm, sender)).id, sender });
      },
      async () => {
        const ids = r.some(sent).map((m) => m.id);
        if (!ids.length) return;
        const op = r.pick(["add", "remove"] as const);
        const flag = r.pick(["read", "read", "starred"] as const);
        // a direct message the user is not in is "Invalid message(s)", which changes nothing
        await sys
          .call(messaging.updateMessageFlags, { messages: ids, op, flag }, r.pick(people))
          .catch(() => undefined);
      },
      async () => {
        const m = sent.length ? r.pick(sent) : null;
        if (!m) return;
        const content = r.pick(["edited", "now @**Bob**", "now @**all**"]);
        await sys.call(messaging.updateMessage, { message_id: m.id, content }, m.sender).catch(() => undefined);
      },
      async () => {
        const m = sent.length ? r.pick(sent) : null;
        if (!m) return;
        const move = {
          message_id: m.id,
          topic: r.pick(topics),
          propagate_mode: r.pick(["change_one", "change_all"] as const),
        };
        const to = r.int(3) === 0 ? { stream_id: r.pick(channels).id } : {};
        await sys.call(messaging.updateMessage, { ...move, ...to }, sys.owner).catch(() => undefined);
      },
      async () => {
        const m = sent.length ? sent.splice(r.int(sent.length), 1)[0]! : null;
        if (m) await sys.call(messaging.deleteMessage, { message_id: m.id }, sys.owner).catch(() => undefined);
      },
      async () => {
        const ch = r.pick(channels);
        await sys
          .call(messaging.markTopicAsRead, { stream_id: ch.id, topic_name: r.pick(topics) }, r.pick(people))
          .catch(() => undefined);
      },
      async () => {
        if (r.int(4) === 0) await sys.call(messaging.markAllAsRead, {}, r.pick(people));
      },
    ];
    for (let step = 0; step < 160; step++) {
      // sends twice as often as anything else, as in a team's day
      await (r.int(3) === 0 ? ops[0]!() : r.pick(ops)());
      if (step % 40 === 39) await expectSummariesMatchRows();
    }
    // the summaries were exercised: rows folded into buckets, not only read from the rows
    const folded = await withDb((db) =>
      db.collection("unreadbuckets").countDocuments({ realmId: sys.realm.id, block: -1, foldedThrough: { $gt: 0 } }),
    );
    expect(folded).toBeGreaterThan(0);
    const expected = sorted(await recomputedSummaries());
    expect(Object.values(expected).flat().length).toBeGreaterThan(20);
    expect(
      Object.values(expected)
        .flat()
        .filter((e) => e.endsWith(" starred")).length,
    ).toBeGreaterThan(0);
    for (const p of people) {
      const ids = expected[p.userId]!.filter((e) => !e.endsWith(" starred"))
        .map((e) => Number(e.split(" ")[0]))
        .sort((a, b) => a - b);
      // both instances answer register over the rounds
      for (let i = 0; i < 6; i++) expect(await registeredUnread(p)).toEqual(ids);
    }
  }, 180_000);

  it("is rebuilt from the rows when a deployment starts without it", async () => {
    const before = sorted(await recomputedSummaries());
    await withDb(async (db) => {
      await db.collection("unreadbuckets").deleteMany({});
      await db.collection("deployment_steps").deleteMany({});
    });
    // every instance restarted: none keeps a user's state in memory
    await sys.stopService("messaging");
    await sys.stopService("messaging");
    await sys.startService("messaging");
    await expectSummariesMatchRows();
    expect(sorted(await storedSummaries())).toEqual(before);
    for (const p of people) {
      const ids = before[p.userId]!.filter((e) => !e.endsWith(" starred"))
        .map((e) => Number(e.split(" ")[0]))
        .sort((a, b) => a - b);
      expect(await registeredUnread(p)).toEqual(ids);
    }
  }, 60_000);
});
