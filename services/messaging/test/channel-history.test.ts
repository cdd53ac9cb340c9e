/**
 * A channel longer than its in-memory tail, after a restart. Its messages come
 * back from the channel's runs (ChannelRunRepository), which sends, topic
 * moves, moves to another channel and deletions keep, or from the messages for
 * a channel that has none (made before them), which then get them: register's
 * unread_msgs is what it was before the restart. GET /messages' pages older
 * than the tail are read among the ids the instance holds (ChannelMessageCache)
 * and below them from the database: each page equals Zulip's answer worked out
 * from the channel's messages, whichever side of those bounds its anchor is,
 * for a channel, a topic and a sender narrow; the first member to open the
 * channel had read its older half, so that the ids held start in the middle.
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel, makeCast, messagingDatabaseOf } from "./helpers";

/** More than RecentMessages' tail holds (at most 400), so that older pages leave it. */
const MESSAGES = 460;
const TOPICS = ["alpha", "Beta", "gamma"];

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let longId: number;
/** the channel's messages, oldest first */
const sent: Array<{ id: number; topic: string; senderId: number }> = [];
beforeAll(async () => {
  sys = await startSystem({ env: { LOG_LEVEL: "error", RATE_LIMIT_REQUESTS: "10000" } });
  ({ alice, bob, carol } = await makeCast(sys));
  longId = await createChannel(sys, alice, "long", [alice.userId, bob.userId, carol.userId]);
  // five at a time: concurrent sends append to the channel's runs side by side
  const send = (i: number) =>
    sys.call(
      messaging.sendMessage,
      { type: "stream", to: "long", topic: TOPICS[i % TOPICS.length]!, content: `message ${i}` },
      i % 5 < 3 ? alice : bob,
    );
  for (let i = 0; i < MESSAGES; i += 5) await Promise.all([0, 1, 2, 3, 4].map((k) => send(i + k)));
  // runs changed: a topic moved within the channel, messages deleted, one moved to another channel
  const ids = (await sys.call(messaging.getMessages, window(), alice)).messages.map((m) => m.id);
  const gamma = (await sys.call(messaging.getMessages, window([["topic", "gamma"]]), alice)).messages[0]!.id;
  const edit = { message_id: gamma, topic: "delta", propagate_mode: "change_all" } as const;
  await sys.call(messaging.updateMessage, edit, sys.owner);
  for (const id of ids.slice(10, 13)) await sys.call(messaging.deleteMessage, { message_id: id }, sys.owner);
  const otherId = await createChannel(sys, alice, "other", [alice.userId, carol.userId]);
  await sys.call(messaging.updateMessage, { message_id: ids[20]!, stream_id: otherId }, sys.owner);
  // the channel's messages, its creation notice among them, as carol's home view (no channel narrow) lists them
  const all = await sys.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 1000, num_after: 0, narrow: [] },
    carol,
  );
  for (const m of all.messages) {
    if (m.type === "stream" && m.stream_id === longId) sent.push({ id: m.id, topic: m.subject, senderId: m.sender_id });
  }
  // its creation notice, less the 3 deleted and the one moved out, plus the move's notice in its old topic
  expect(sent.length).toBe(MESSAGES + 1 - 3 - 1 + 1);
  // carol has read the older half; after a restart she is the first to open the channel
  const read = sent.slice(0, sent.length / 2).map((m) => m.id);
  await sys.call(messaging.updateMessageFlags, { messages: read, op: "add", flag: "read" }, carol);
  unreadBefore = await unreadMsgs(carol);
  await restartMessaging();
  unreadAfter = await unreadMsgs(carol);
}, 180_000);
afterAll(() => sys?.stop());

let unreadBefore: unknown;
let unreadAfter: unknown;
const window = (narrow: Narrow = []): ParamsIn<typeof messaging.getMessages> => ({
  anchor: "oldest",
  num_before: 0,
  num_after: 1000,
  narrow: [["channel", "long"], ...narrow],
});
const unreadMsgs = async (user: TestUser) =>
  (
    (await sys.call(
      notifications.registerQueue,
      { fetch_event_types: ["message", "update_message_flags"] },
      user,
    )) as unknown as {
      unread_msgs: unknown;
    }
  ).unread_msgs;
/** A new messaging instance, with nothing in memory, in place of the running one. */
async function restartMessaging(): Promise<void> {
  await sys.startService("messaging");
  await sys.stopService("messaging");
}

/** unread_msgs' conversations of the channel, as carol's unread messages in it say they should be. */
function expectChannelUnread(unread: unknown): void {
  const { streams } = unread as { streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }> };
  const firstUnread = Math.floor(sent.length / 2);
  const byTopic = new Map<string, number[]>();
  for (const m of sent.slice(firstUnread)) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m.id]);
  const listed = streams
    .filter((s) => s.stream_id === longId)
    .map((s) => [s.topic, s.unread_message_ids] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  expect(listed).toEqual([...byTopic].sort(([a], [b]) => a.localeCompare(b)));
}

it("register's unread_msgs is the messages' after a restart, read from the channel's runs", () => {
  expectChannelUnread(unreadBefore);
  expectChannelUnread(unreadAfter);
  expect(unreadAfter).toEqual(unreadBefore);
});

it("a channel without runs (made before them) is read from its messages once, and has runs after", async () => {
  const conn = await messagingDatabaseOf(sys);
  try {
    const runs = conn.collection("channel_message_runs");
    await runs.deleteMany({ streamId: longId });
    await restartMessaging();
    expectChannelUnread(await unreadMsgs(carol));
    const stored = await runs.find({ streamId: longId }).toArray();
    expect(new Set(stored.flatMap((r) => r.ids as number[]))).toEqual(
      new Set(sent.map((m) => m.id).filter((id) => id > sent[Math.floor(sent.length / 2) - 1]!.id)),
    );
  } finally {
    await conn.close();
  }
});

type Narrow = NonNullable<ParamsIn<typeof messaging.getMessages>["narrow"]>;
interface Case {
  name: string;
  narrow: Narrow;
  matches: (m: (typeof sent)[number]) => boolean;
}

/** Zulip's window: up to `before` matches older than the anchor, the anchor if it matches, up to `after` newer. */
function expected(c: Case, anchor: number, before: number, after: number): number[] {
  const matching = sent.filter(c.matches).map((m) => m.id);
  return [
    ...matching.filter((id) => id < anchor).slice(-before),
    ...matching.filter((id) => id === anchor),
    ...matching.filter((id) => id > anchor).slice(0, after),
  ];
}

describe("pages of a channel longer than its tail", () => {
  const cases = (): Case[] => [
    { name: "channel", narrow: [["channel", "long"]], matches: () => true },
    {
      name: "topic (any case)",
      narrow: [
        ["channel", "long"],
        ["topic", "beta"],
      ],
      matches: (m) => m.topic === "Beta",
    },
    {
      name: "sender",
      narrow: [
        ["channel", "long"],
        ["sender", bob.userId],
      ],
      matches: (m) => m.senderId === bob.userId,
    },
    {
      name: "topic and sender",
      narrow: [
        ["channel", "long"],
        ["topic", "gamma"],
        ["sender", alice.userId],
      ],
      matches: (m) => m.topic === "gamma" && m.senderId === alice.userId,
    },
  ];

  it.each(["channel", "topic (any case)", "sender", "topic and sender"])(
    "%s: every anchor's page equals Zulip's, across what the instance holds",
    async (name) => {
      const c = cases().find((x) => x.name === name)!;
      const half = Math.floor(sent.length / 2);
      const anchors = [0, 5, 100, half - 2, half, half + 1, 300, sent.length - 1].map((i) => sent[i]!.id);
      for (const anchor of anchors) {
        const page = await sys.call(
          messaging.getMessages,
          { anchor, num_before: 70, num_after: 70, narrow: c.narrow },
          carol,
        );
        expect({ anchor, ids: page.messages.map((m) => m.id) }).toEqual({
          anchor,
          ids: expected(c, anchor, 70, 70),
        });
      }
    },
  );

  it("first_unread opens at carol's first unread message, with the pages either side", async () => {
    const page = await sys.call(
      messaging.getMessages,
      { anchor: "first_unread", num_before: 50, num_after: 50, narrow: [["channel", "long"]] },
      carol,
    );
    const first = sent[Math.floor(sent.length / 2)]!.id;
    expect(page.anchor).toBe(first);
    expect(page.messages.map((m) => m.id)).toEqual(expected(cases()[0]!, first, 50, 50));
  });
});
