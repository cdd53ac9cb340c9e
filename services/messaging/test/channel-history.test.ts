/**
 * GET /messages on a channel longer than its in-memory tail: pages older than
 * the tail are read among the ids of the channel's messages that the instance
 * holds (ChannelMessageCache), and below what it holds from the database. Each
 * page equals Zulip's answer worked out from the messages sent, whichever side
 * of those bounds its anchor is, for a channel, a topic and a sender narrow,
 * after a restart in which the first member to open the channel had read its
 * older half (so that the ids held start in the middle of the history).
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";
import type { TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

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
  for (let i = 0; i < MESSAGES; i++) {
    const sender = i % 5 < 3 ? alice : bob;
    const topic = TOPICS[i % TOPICS.length]!;
    await sys.call(messaging.sendMessage, { type: "stream", to: "long", topic, content: `message ${i}` }, sender);
  }
  // the channel's messages, its creation notice among them, as carol's home view (no channel narrow) lists them
  const all = await sys.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 1000, num_after: 0, narrow: [] },
    carol,
  );
  for (const m of all.messages) {
    if (m.type === "stream" && m.stream_id === longId) sent.push({ id: m.id, topic: m.subject, senderId: m.sender_id });
  }
  expect(sent.length).toBeGreaterThan(MESSAGES);
  // carol has read the older half; after a restart she is the first to open the channel
  const read = sent.slice(0, sent.length / 2).map((m) => m.id);
  await sys.call(messaging.updateMessageFlags, { messages: read, op: "add", flag: "read" }, carol);
  await sys.startService("messaging");
  await sys.stopService("messaging");
  await sys.call(notifications.registerQueue, {}, carol);
}, 180_000);
afterAll(() => sys?.stop());

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
