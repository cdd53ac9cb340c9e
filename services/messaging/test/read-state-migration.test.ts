/**
 * A database made before read states, when every channel message had a row
 * per receiver with its flags ("read" among them, as in Zulip's UserMessage
 * table): messaging's next start converts it (read-state-migration.ts), and
 * each user sees through the API the same flags, unread messages
 * (is:unread, matches_narrow, register's unread_msgs), mentions and stars as
 * before; what is sent afterwards arrives unread for the channel's
 * subscribers. An interrupted conversion resumes where it stopped, and
 * converting again changes nothing.
 */
import mongoose from "mongoose";
import { IdAllocator, createLogger, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { MessageCache } from "../src/messages/message-cache";
import { MessageRepository } from "../src/messages/message.repository";
import { ChannelRunRepository } from "../src/messages/channel-run.repository";
import { openSearchEngine } from "../src/search/open-search";
import { SubscriptionRepository } from "../src/subscriptions/subscription.repository";
import { migrateToReadStates } from "../src/user-messages/read-state-migration";
import { ReadStateRepository } from "../src/user-messages/read-state.repository";
import { UserMessageRepository } from "../src/user-messages/user-message.repository";
import { OPEN, inIntervals } from "../src/user-messages/read-state";
import type { ReadStateDoc } from "../src/user-messages/read-state.schema";
import { createChannel, makeCast, messagingDatabaseOf } from "./helpers";

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let general: number;
let side: number;
/** messaging's database, as the test reads and rewrites it */
let conn: mongoose.Connection;
const logs: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  sys = await startSystem({ env: { LOG_LEVEL: "info" }, logs });
  ({ alice, bob, carol } = await makeCast(sys));
  general = await createChannel(sys, alice, "general", [alice.userId, bob.userId, carol.userId]);
  side = await createChannel(sys, alice, "side", [alice.userId, bob.userId]);
  conn = await messagingDatabaseOf(sys);
});
afterAll(async () => {
  await conn?.close();
  await sys?.stop();
});

const send = async (from: TestUser, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await sys.call(messaging.sendMessage, params, from)).id;
const flag = (user: TestUser, messages: number[], op: "add" | "remove", name: string) =>
  sys.call(messaging.updateMessageFlags, { messages, op, flag: name }, user);
const flagsOf = async (user: TestUser, id: number) =>
  (await sys.call(messaging.getMessage, { message_id: id }, user)).message.flags;

const UNREAD = [{ operator: "is", operand: "unread" }];
/** Everything a user sees of their flags: every message's, is:unread, matches_narrow and register's. */
async function seen(user: TestUser) {
  const window = { anchor: "newest", num_before: 1000, num_after: 0 } as const;
  const { messages } = await sys.call(messaging.getMessages, { ...window, narrow: [] }, user);
  const unread = await sys.call(messaging.getMessages, { ...window, narrow: UNREAD }, user);
  const matching = await sys.call(
    messaging.matchesNarrow,
    { msg_ids: messages.map((m) => m.id), narrow: UNREAD },
    user,
  );
  const registered = (await sys.call(
    notifications.registerQueue,
    { fetch_event_types: ["message", "update_message_flags", "starred_messages"] },
    user,
  )) as unknown as { unread_msgs: unknown; starred_messages: number[] };
  return {
    flags: new Map(messages.map((m) => [m.id, m.flags])),
    unread: unread.messages.map((m) => m.id),
    matching: Object.keys(matching.messages).map(Number),
    unreadMsgs: registered.unread_msgs,
    starred: registered.starred_messages,
  };
}

/**
 * The migration as messaging runs it at start-up, on repositories of the
 * test's own (made once: a connection has one model per name).
 */
let migrate: (limits?: { batch?: number; maxBatches?: number }) => Promise<boolean>;
let closeMigration: () => Promise<void>;
beforeAll(async () => {
  const log = createLogger("messaging", "silent");
  const search = await openSearchEngine(sys.config, conn, log);
  const cache = new MessageCache(sys.nc, log);
  const deps = {
    db: conn,
    messages: new MessageRepository(conn, new IdAllocator(conn), cache, search, new ChannelRunRepository(conn)),
    subscriptions: new SubscriptionRepository(conn),
    userMessages: new UserMessageRepository(conn),
    readStates: new ReadStateRepository(conn),
    log,
  };
  migrate = (limits = {}) => migrateToReadStates(deps, limits);
  closeMigration = async () => {
    cache.stop();
    await search.close();
  };
});
afterAll(() => closeMigration?.());

interface Row {
  _id: string;
  realmId: number;
  userId: number;
  messageId: number;
  flags: string[];
  unread: boolean;
  marked: boolean;
}
const rows = () => conn.collection<Row>("usermessages");
const readStates = () => conn.collection<ReadStateDoc>("readstates");
const progress = () => conn.collection<{ _id: string; watermark: number; after: string; done: boolean }>("migrations");

/** What the migration wrote: every read state (but its version, a counter of writes) and every row. */
async function stored() {
  const states = await readStates()
    .find({}, { projection: { version: 0 } })
    .sort({ _id: 1 })
    .toArray();
  return { states, rows: await rows().find({}).sort({ _id: 1 }).toArray() };
}

/**
 * Rewrites messaging's database as the code before read states kept the same
 * flags: no read states, each channel message's receivers stored with it (the
 * subscribers of the time), and a row per receiver of every channel message (and
 * per user who flagged one they never received: Zulip's historical rows), its
 * flags what the API shows the user ("historical" is not stored) or
 * `overrides` (by `user:message`). Direct messages' rows were the same then.
 */
async function rewriteAsBefore(overrides: Map<string, string[]>): Promise<number[]> {
  const realmId = sys.realm.id;
  const users = [sys.owner, alice, bob, carol];
  const messages = () =>
    conn.collection<{ messageId: number; streamId: number; receivers: number[]; receivedBySubscription?: true }>(
      "messages",
    );
  const channelMessages = await messages().find({ realmId, type: "stream" }).toArray();
  const intervals = new Map(
    (await readStates().find({ realmId }).toArray()).map((s) => [`${s.userId}:${s.streamId}`, s]),
  );
  const oldRows: Row[] = [];
  for (const m of channelMessages) {
    expect(m.receivedBySubscription).toBe(true);
    m.receivers = users
      .map((u) => u.userId)
      .filter((u) => inIntervals(intervals.get(`${u}:${m.streamId}`)?.intervals, m.messageId));
    const flagged = new Set((await rows().find({ realmId, messageId: m.messageId }).toArray()).map((r) => r.userId));
    for (const user of users) {
      if (!m.receivers.includes(user.userId) && !flagged.has(user.userId)) continue;
      const flags =
        overrides.get(`${user.userId}:${m.messageId}`) ??
        (await flagsOf(user, m.messageId)).filter((f) => f !== "historical");
      const unread = !flags.includes("read");
      oldRows.push({
        _id: `${realmId}:${user.userId}:${m.messageId}`,
        realmId,
        userId: user.userId,
        messageId: m.messageId,
        flags,
        unread,
        marked: unread || flags.length > 1,
      });
    }
  }
  await sys.stopService("messaging");
  for (const m of channelMessages) {
    await messages().updateOne(
      { messageId: m.messageId },
      { $set: { receivers: m.receivers }, $unset: { receivedBySubscription: 1 } },
    );
  }
  await readStates().deleteMany({});
  await progress().deleteMany({});
  await rows().deleteMany({ messageId: { $in: channelMessages.map((m) => m.messageId) } });
  await rows().insertMany(oldRows);
  return channelMessages.map((m) => m.messageId);
}

it("converts rows per receiver to read states: the same flags as before, new messages unread", async () => {
  const m1 = await send(alice, { type: "stream", to: general, topic: "t", content: "hello" });
  const m2 = await send(bob, { type: "stream", to: general, topic: "t", content: "@**Carol** @**Alice** look" });
  const m3 = await send(alice, { type: "stream", to: general, topic: "u", content: "star me" });
  const m4 = await send(alice, { type: "stream", to: side, topic: "t", content: "side note" });
  const d1 = await send(alice, { type: "direct", to: [bob.userId], content: "psst" });
  const d2 = await send(bob, { type: "direct", to: [alice.userId], content: "re" });
  await flag(bob, [m1], "add", "read");
  await flag(bob, [m3], "add", "starred");
  await flag(alice, [d2], "add", "read");
  // Carol leaves (Zulip marks the channel read) and stars a message of a channel she never joined (a historical row)
  await sys.call(messaging.unsubscribe, { subscriptions: ["general"] }, carol);
  await flag(carol, [m4], "add", "starred");

  const expected = { alice: await seen(alice), bob: await seen(bob), carol: await seen(carol) };
  expect(await flagsOf(bob, m1)).toEqual(["read"]);
  expect(await flagsOf(bob, m3)).toEqual(["starred"]);
  expect(await flagsOf(bob, m4)).toEqual([]);
  expect(await flagsOf(alice, m2)).toEqual(["mentioned"]);
  expect((expected.alice.unreadMsgs as { mentions: number[] }).mentions).toEqual([m2]);
  expect(await flagsOf(carol, m2)).toEqual(["read", "mentioned"]);
  expect(await flagsOf(carol, m4)).toEqual(["read", "starred", "historical"]);
  expect(await flagsOf(bob, d1)).toEqual([]);
  expect(expected.bob.unread).toEqual(expect.arrayContaining([m3, m4, d1]));
  expect(expected.carol.unread).not.toContain(m2);

  // An unsubscribed user's unread row, which marking unread cannot make now (Zulip ignores it for channels the
  // user left) but an older database may hold: converted as it is.
  const channelIds = await rewriteAsBefore(new Map([[`${carol.userId}:${m2}`, ["mentioned"]]]));
  expect(await rows().findOne({ _id: `${sys.realm.id}:${bob.userId}:${m1}` })).toMatchObject({ flags: ["read"] });
  /** channel rows as the code before kept them: unread ones without "read", read ones with nothing else */
  const oldFormRows = (keys: object) =>
    rows().countDocuments({
      ...keys,
      messageId: { $in: channelIds },
      $or: [{ flags: { $ne: "read" } }, { flags: ["read"] }],
    });

  // interrupted after one batch: converted up to the batch's last row, the rest as it was
  expect(await migrate({ batch: 3, maxBatches: 1 })).toBe(false);
  const halfway = (await progress().findOne({ _id: "readstates" }))!;
  expect(halfway).toMatchObject({ done: false, after: expect.stringMatching(/.+/) });
  expect(await oldFormRows({ _id: { $lte: halfway.after } })).toBe(0);
  expect(await oldFormRows({ _id: { $gt: halfway.after } })).toBeGreaterThan(0);

  // messaging's start resumes it with the same watermark, and finishes it
  const logged = logs.length;
  await sys.startService("messaging");
  const done = (await progress().findOne({ _id: "readstates" }))!;
  expect(done).toMatchObject({ done: true, watermark: halfway.watermark });
  expect(await oldFormRows({})).toBe(0);
  expect(logs.slice(logged).filter((l) => l.msg === "read states migration: done")).toEqual([
    expect.objectContaining({ watermark: done.watermark, unread: expect.any(Number), dropped: expect.any(Number) }),
  ]);
  expect(await seen(alice)).toEqual(expected.alice);
  expect(await seen(bob)).toEqual(expected.bob);
  const carolNow = await seen(carol);
  expect(carolNow.flags).toEqual(new Map([...expected.carol.flags, [m2, ["mentioned"]]]));
  expect(carolNow.unread).toEqual([...expected.carol.unread, m2].sort((a, b) => a - b));
  expect(carolNow.starred).toEqual(expected.carol.starred);
  // unread_msgs leaves out the channel she left, as Zulip's get_raw_unread_data does
  expect(carolNow.unreadMsgs).toEqual(expected.carol.unreadMsgs);

  // stored as read states want it: a record per subscription, unread below the watermark as exceptions, rows
  // for channel messages only where a flag besides "read" is, with "read" as their sentinel
  const W = done.watermark;
  const state = (user: TestUser, streamId: number) =>
    readStates().findOne({ _id: `${sys.realm.id}:${user.userId}:${streamId}` });
  /** the user's unread messages in a channel, as register listed them before the migration */
  const unreadIn = (was: { unreadMsgs: unknown }, streamId: number) =>
    (was.unreadMsgs as { streams: Array<{ stream_id: number; unread_message_ids: number[] }> }).streams
      .filter((s) => s.stream_id === streamId)
      .flatMap((s) => s.unread_message_ids)
      .sort((a, b) => a - b);
  const exceptions = async (user: TestUser, streamId: number) =>
    (await state(user, streamId))!.exceptions.sort((a, b) => a - b);
  expect(await state(bob, general)).toMatchObject({ watermark: W, intervals: [W, OPEN] });
  expect(await exceptions(bob, general)).toEqual(unreadIn(expected.bob, general));
  expect(unreadIn(expected.bob, general)).toContain(m3);
  expect(await state(bob, side)).toMatchObject({ watermark: W, intervals: [W, OPEN] });
  expect(await exceptions(bob, side)).toEqual(unreadIn(expected.bob, side));
  expect(await state(carol, general)).toMatchObject({ watermark: W, exceptions: [m2], intervals: [] });
  expect(await state(carol, side)).toBeNull();
  const channelRows = await rows()
    .find({ messageId: { $in: [m1, m2, m3, m4] } })
    .toArray();
  expect(channelRows.map((r) => [r.userId, r.messageId, r.flags, r.unread, r.marked]).sort()).toEqual(
    [
      [bob.userId, m3, ["read", "starred"], false, true],
      [alice.userId, m2, ["read", "mentioned"], false, true],
      [carol.userId, m2, ["read", "mentioned"], false, true],
      [carol.userId, m4, ["read", "starred"], false, true],
    ].sort(),
  );
  expect(await rows().countDocuments({ realmId: sys.realm.id, messageId: d1 })).toBe(2);

  // what is sent now arrives unread for the subscribers, read for its sender; Carol left and gets none
  const after = await send(alice, { type: "stream", to: general, topic: "t", content: "after the migration" });
  expect(await flagsOf(bob, after)).toEqual([]);
  expect(await flagsOf(alice, after)).toEqual(["read"]);
  expect((await seen(bob)).unread).toEqual([...expected.bob.unread, after].sort((a, b) => a - b));
  expect((await seen(carol)).unread).toEqual(carolNow.unread);

  // converting again from the start changes nothing; once done, it returns at once
  await sys.stopService("messaging");
  const converted = await stored();
  await progress().updateOne({ _id: "readstates" }, { $set: { after: "", done: false } });
  expect(await migrate({ batch: 2 })).toBe(true);
  expect(await stored()).toEqual(converted);
  expect(await migrate()).toBe(true);
  expect(await stored()).toEqual(converted);
  await sys.startService("messaging");
  expect(await flagsOf(bob, after)).toEqual([]);
  expect(await flagsOf(carol, m2)).toEqual(["mentioned"]);
}, 120_000);
