import { ascending, narrowMatch, narrowSource } from "../src/narrow/plan";
import { contentFeatures } from "../src/messages/content-features";
import type { MessageDoc } from "../src/messages/message.schema";
import { OPEN } from "../src/user-messages/read-state";
import { narrowToQuery, normalizeNarrow, type NarrowCondition, type NarrowResolver } from "../src/narrow/conditions";

const ME = 10;
/** ME's subscription intervals: channel 1 since message 50, channel 2 never */
const RECEIVED = new Map([
  [1, [50, OPEN]],
  [2, []],
]);
const resolver: NarrowResolver = {
  userId: ME,
  emptyTopicName: "general chat",
  channel: async (operand) =>
    operand === "design" || operand === 1
      ? { streamId: 1, fullHistory: true }
      : operand === "vault"
        ? { streamId: 2, fullHistory: false }
        : null,
  users: async (ops) =>
    ops.every((o) => o === 20 || o === ME || o === "bob@example.com") ? ops.map((o) => (o === ME ? ME : 20)) : null,
  conversation: async (ids) => ([...ids].sort().join() === "10,20" ? 500 : null),
  message: async (id) =>
    id === 90 ? { streamId: 1, topic: "Moved here" } : id === 91 ? { participants: [ME, 20] } : null,
  flagged: async (flags) => (flags.includes("starred") ? [3] : []),
  mentioned: async () => [5, 6],
  unread: async () => [7, 8],
  received: async () => ({ channels: RECEIVED, rows: [3] }),
  topicsWithPolicy: async (policies) => [
    ...(policies.includes(1) ? [{ streamId: 1, key: "noise" }] : []),
    ...(policies.includes(3) ? [{ streamId: 2, key: "watch" }] : []),
  ],
  mutedChannels: async () => [4],
  publicChannels: async (webPublicOnly) => (webPublicOnly ? [4] : [1, 4]),
};
const query = (raw: unknown[]) =>
  narrowToQuery(normalizeNarrow(raw as Parameters<typeof normalizeNarrow>[0]), resolver);
const mine: NarrowCondition = { kind: "receivers", userId: ME, channels: RECEIVED, rows: [3] };

describe("normalizeNarrow", () => {
  it("turns legacy pairs and old operator names into object terms", () => {
    expect(
      normalizeNarrow([
        ["stream", "design"],
        ["subject", "x"],
        ["is", "private"],
        ["pm-with", "a@b"],
      ]),
    ).toEqual([
      { operator: "channel", operand: "design", negated: false },
      { operator: "topic", operand: "x", negated: false },
      { operator: "is", operand: "dm", negated: false },
      { operator: "dm", operand: "a@b", negated: false },
    ]);
    expect(normalizeNarrow([{ operator: "-sender", operand: 20 }])).toEqual([
      { operator: "sender", operand: 20, negated: true },
    ]);
  });
});

describe("narrowToQuery", () => {
  it("an empty narrow is the user's personal history", async () => {
    expect(await query([])).toEqual({ terms: [mine], includeHistory: false });
  });

  it("a readable channel with shared history reaches its whole history", async () => {
    expect(
      await query([
        ["stream", "design"],
        ["topic", "Hello "],
      ]),
    ).toEqual({
      terms: [
        { kind: "channel", streamId: 1 },
        { kind: "topic", key: "hello" },
      ],
      includeHistory: true,
    });
    expect((await query([{ operator: "channel", operand: "1" }])).terms).toEqual([{ kind: "channel", streamId: 1 }]);
  });

  it("protected history and flag filters keep to personal history", async () => {
    expect(await query([["stream", "vault"]])).toEqual({
      terms: [mine, { kind: "channel", streamId: 2 }],
      includeHistory: false,
    });
    expect(
      await query([
        ["stream", "design"],
        ["is", "starred"],
      ]),
    ).toEqual({
      terms: [mine, { kind: "channel", streamId: 1 }, { kind: "ids", in: [3] }],
      includeHistory: false,
    });
    expect((await query([["is", "unread"]])).terms).toEqual([mine, { kind: "ids", in: [7, 8] }]);
  });

  it("the empty-topic display name means the empty topic", async () => {
    expect((await query([["topic", "general chat"]])).terms).toEqual([mine, { kind: "topic", key: "" }]);
  });

  it("dm, sender, is:dm, id and negation", async () => {
    const conversation: NarrowCondition = { kind: "conversation", recipientId: 500 };
    expect((await query([["dm", [20]]])).terms).toEqual([mine, conversation]);
    expect((await query([["dm", "bob@example.com"]])).terms).toEqual([mine, conversation]);
    expect(
      (await query([{ operator: "sender", operand: "bob@example.com", negated: true }, ["is", "dm"]])).terms,
    ).toEqual([mine, { kind: "not", term: { kind: "sender", userId: 20 } }, { kind: "direct" }]);
    expect((await query([["id", 42]])).terms).toEqual([mine, { kind: "id", id: 42 }]);
  });

  it("search: the operand as given, for the search engine", async () => {
    expect(
      (
        await query([
          ["stream", "design"],
          ["search", 'cost 1.5 "two words"'],
        ])
      ).terms,
    ).toEqual([
      { kind: "channel", streamId: 1 },
      { kind: "search", operand: 'cost 1.5 "two words"' },
    ]);
  });

  it("channels:public reaches public channels' history", async () => {
    expect(await query([["channels", "public"]])).toEqual({
      terms: [{ kind: "channels", streamIds: [1, 4] }],
      includeHistory: true,
    });
  });

  it("refuses unknown operators and operands with BAD_NARROW", async () => {
    const fails = async (raw: unknown[], msg: string) =>
      expect(query(raw)).rejects.toMatchObject({ code: "BAD_NARROW", status: 400, message: msg });
    await fails([["stream", "nope"]], "Invalid narrow operator: unknown channel nope");
    await fails([["sender", "x@y"]], "Invalid narrow operator: unknown user x@y");
    await fails([["is", "weird"]], "Invalid narrow operator: unknown 'is' operand weird");
    await fails([["has", "links"]], "Invalid narrow operator: unknown 'has' operand links");
    await fails([["in", "away"]], "Invalid narrow operator: unknown 'in' operand away");
    await fails([["channels", "private"]], "Invalid narrow operator: unknown channels operand private");
    await fails([["id", "12a"]], "Invalid narrow operator: Invalid message ID");
    await fails([["dm", "x@y,bob@example.com"]], "Invalid narrow operator: unknown user in x@y,bob@example.com");
    await fails([{ operator: "dm", operand: [20, 21] }], "Invalid narrow operator: unknown user in [20, 21]");
    await fails([["dm-including", "x@y"]], "Invalid narrow operator: unknown user x@y");
    await fails([["with", "abc"]], "Invalid narrow operator: Invalid 'with' operator");
    await fails([["with", "77"]], "Invalid narrow operator: Invalid 'with' operator");
    await fails(
      [
        ["with", "90"],
        ["with", "91"],
      ],
      "Invalid narrow operator combination: Duplicate 'with' operators.",
    );
    await fails(
      [
        ["stream", "design"],
        ["dm", "bob@example.com"],
      ],
      "Invalid narrow operator: No message can be both a channel message and direct message",
    );
    await fails(
      [{ operator: "is", operand: "dm", negated: true }, ["is", "private"]],
      "Invalid narrow operator: No message can be both a channel message and direct message",
    );
  });

  it("refuses operands of the wrong type as Zulip's NarrowParameter does", () => {
    const fails = (raw: unknown[], msg: string) =>
      expect(() => normalizeNarrow(raw as Parameters<typeof normalizeNarrow>[0])).toThrow(
        expect.objectContaining({ code: "BAD_REQUEST", message: msg }),
      );
    fails([{ operator: "is", operand: 5 }], "operand is not a string");
    fails([{ operator: "sender", operand: [5] }], "operand is not a string or integer");
    fails([{ operator: "dm", operand: 5 }], "operand is not a string or an integer list");
    fails([{ operator: "dm", operand: [5, "x"] }], "operand[1] is not an integer");
    fails([["search", "  "]], "operand cannot be blank.");
  });

  it("legacy spellings: pm_with, group_pm_with, group-pm-with, is:private", async () => {
    const conversation: NarrowCondition = { kind: "conversation", recipientId: 500 };
    expect((await query([["pm_with", "bob@example.com"]])).terms).toEqual([mine, conversation]);
    expect((await query([{ operator: "pm_with", operand: "bob@example.com" }])).terms).toEqual([mine, conversation]);
    const group: NarrowCondition = { kind: "dm-including", userIds: [20], groupOnly: true };
    expect((await query([["group_pm_with", "bob@example.com"]])).terms).toEqual([mine, group]);
    expect((await query([["group-pm-with", 20]])).terms).toEqual([mine, group]);
    expect((await query([["dm-including", 20]])).terms).toEqual([mine, { kind: "dm-including", userIds: [20] }]);
    expect((await query([["dm-including", ME]])).terms).toEqual([mine, { kind: "direct" }]);
  });

  it("is:, has:, in: and near", async () => {
    expect((await query([["is", "mentioned"]])).terms).toEqual([mine, { kind: "ids", in: [5, 6] }]);
    expect((await query([["is", "resolved"]])).terms).toEqual([mine, { kind: "resolved" }]);
    // is:resolved alone keeps a channel's shared history; every other is: keeps to personal history
    expect(
      await query([
        ["stream", "design"],
        ["is", "resolved"],
      ]),
    ).toEqual({
      terms: [{ kind: "channel", streamId: 1 }, { kind: "resolved" }],
      includeHistory: true,
    });
    expect((await query([["is", "followed"]])).terms).toEqual([
      mine,
      { kind: "topics", topics: [{ streamId: 2, key: "watch" }] },
    ]);
    const muted: NarrowCondition = {
      kind: "muted",
      channels: [4],
      topics: [{ streamId: 1, key: "noise" }],
      exempt: [{ streamId: 2, key: "watch" }],
    };
    expect((await query([["is", "muted"]])).terms).toEqual([mine, muted]);
    expect((await query([["in", "home"]])).terms).toEqual([mine, { kind: "not", term: muted }]);
    expect((await query([["in", "all"]])).terms).toEqual([mine]);
    expect((await query([{ operator: "has", operand: "image", negated: true }])).terms).toEqual([
      mine,
      { kind: "not", term: { kind: "has", feature: "image" } },
    ]);
    expect((await query([["near", "12"]])).terms).toEqual([mine]);
    expect((await query([["channels", "web-public"]])).terms).toEqual([{ kind: "channels", streamIds: [4] }]);
  });

  it("with: the message's conversation where it is now, replacing the narrow's own", async () => {
    expect(
      (
        await query([
          ["stream", "vault"],
          ["topic", "old"],
          ["with", "90"],
          ["sender", 20],
        ])
      ).terms,
    ).toEqual([
      { kind: "channel", streamId: 1 },
      { kind: "topic", key: "moved here" },
      { kind: "sender", userId: 20 },
    ]);
    expect((await query([{ operator: "with", operand: 91 }])).terms).toEqual([
      mine,
      { kind: "conversation", recipientId: 500 },
    ]);
    // a message the user may not see: the narrow's own conversation
    expect(
      (
        await query([
          ["stream", "design"],
          ["topic", "x"],
          ["with", 77],
        ])
      ).terms,
    ).toEqual([
      { kind: "channel", streamId: 1 },
      { kind: "topic", key: "x" },
    ]);
  });
});

const message = (over: Partial<MessageDoc>): MessageDoc => ({
  realmId: 1,
  messageId: 100,
  senderId: 20,
  type: "stream",
  recipientId: 300,
  streamId: 1,
  topic: "Hello",
  topicKey: "hello",
  receivers: [ME, 20],
  content: "The cost is 1.5 units, in two words",
  renderedContent: "",
  timestamp: 0,
  client: "API",
  ...over,
});
const dm = message({
  type: "private",
  recipientId: 500,
  streamId: null,
  topic: "",
  topicKey: "",
  receivers: [ME, 20, 30],
});

describe("MessageRepository's reading of a narrow", () => {
  it("counts a channel message received by subscription as received within the user's intervals only", () => {
    const bySubscription = (messageId: number, streamId: number) =>
      message({ messageId, streamId, receivers: [], receivedBySubscription: true });
    expect(narrowMatch([mine])(bySubscription(51, 1))).toBe(true);
    expect(narrowMatch([mine])(bySubscription(50, 1))).toBe(false);
    expect(narrowMatch([mine])(bySubscription(51, 2))).toBe(false);
    expect(narrowMatch([mine])(bySubscription(51, 3))).toBe(false);
    // a stored list is the message's receivers, whatever the intervals say
    expect(narrowMatch([mine])(message({ messageId: 40, receivers: [ME] }))).toBe(true);
    expect(narrowMatch([mine])(message({ messageId: 60, receivers: [20] }))).toBe(false);
    // a row of a message never received (Zulip's historical row: starred through the channel's history)
    expect(narrowMatch([mine])(message({ messageId: 3, receivers: [20] }))).toBe(true);
  });

  it("reads what a user received from their stored receipts and their channels' indexes", () => {
    expect(narrowSource([mine])).toEqual({ union: [{ receivers: ME }, { streamId: 1 }] });
    const many = new Map(Array.from({ length: 20 }, (_, i) => [i + 1, [0, OPEN]]));
    expect(narrowSource([{ kind: "receivers", userId: ME, channels: many }])).toEqual({ index: {} });
  });

  it("matches a message only when every condition holds", () => {
    const m = message({});
    expect(narrowMatch([])(m)).toBe(true);
    expect(narrowMatch([mine, { kind: "channel", streamId: 1 }, { kind: "topic", key: "hello" }])(m)).toBe(true);
    expect(narrowMatch([mine, { kind: "channel", streamId: 2 }])(m)).toBe(false);
    expect(narrowMatch([{ kind: "receivers", userId: 99, channels: new Map() }])(m)).toBe(false);
    expect(narrowMatch([{ kind: "ids", in: [7, 100] }])(m)).toBe(true);
    expect(narrowMatch([{ kind: "ids", in: [7, 8] }])(m)).toBe(false);
    expect(narrowMatch([{ kind: "channels", streamIds: [1, 4] }])(m)).toBe(true);
    expect(narrowMatch([{ kind: "channels", streamIds: [1, 4] }])(dm)).toBe(false);
    expect(narrowMatch([{ kind: "id", id: 100 }])(m)).toBe(true);
    expect(narrowMatch([{ kind: "nothing" }])(m)).toBe(false);
  });

  it("dm, dm-including, is:dm, sender and negation", () => {
    expect(narrowMatch([{ kind: "conversation", recipientId: 500 }])(dm)).toBe(true);
    // a channel message with the same recipient id is not the conversation
    expect(narrowMatch([{ kind: "conversation", recipientId: 300 }])(message({}))).toBe(false);
    expect(narrowMatch([{ kind: "dm-including", userIds: [20, 30] }])(dm)).toBe(true);
    expect(narrowMatch([{ kind: "dm-including", userIds: [20, 40] }])(dm)).toBe(false);
    expect(narrowMatch([{ kind: "direct" }])(message({}))).toBe(false);
    expect(narrowMatch([{ kind: "not", term: { kind: "sender", userId: 20 } }])(dm)).toBe(false);
    expect(narrowMatch([{ kind: "not", term: { kind: "sender", userId: 21 } }, { kind: "direct" }])(dm)).toBe(true);
  });

  it("search: left to the search engine, which a narrow with a search, negated or not, is read through", () => {
    const search: NarrowCondition = { kind: "search", operand: "absent" };
    expect(narrowMatch([search])(message({}))).toBe(true);
    expect(narrowMatch([{ kind: "not", term: search }])(message({}))).toBe(true);
    expect(narrowMatch([search, { kind: "channel", streamId: 2 }])(message({}))).toBe(false);
    expect(narrowSource([mine, { kind: "channel", streamId: 1 }, search])).toEqual({ search: true });
    expect(
      narrowSource([
        { kind: "ids", in: [1] },
        { kind: "not", term: search },
      ]),
    ).toEqual({ search: true });
  });

  it("a condition the search engine's index selects by is read through the engine, a negated one is not", () => {
    const link: NarrowCondition = { kind: "has", feature: "link" };
    const selects = (c: NarrowCondition) => c.kind === "has" && c.feature === "link";
    expect(narrowSource([mine, { kind: "channel", streamId: 1 }, link], selects)).toEqual({ search: true });
    expect(narrowSource([mine, { kind: "channel", streamId: 1 }, link])).toEqual({ index: { streamId: 1 } });
    expect(narrowSource([mine, { kind: "not", term: link }], selects)).toEqual({
      union: [{ receivers: ME }, { streamId: 1 }],
    });
  });

  it("reads from the most selective index the narrow allows", () => {
    expect(narrowSource([mine, { kind: "channel", streamId: 1 }, { kind: "topic", key: "t" }])).toEqual({
      index: { streamId: 1, topicKey: "t" },
    });
    expect(narrowSource([mine, { kind: "channel", streamId: 1 }])).toEqual({ index: { streamId: 1 } });
    expect(narrowSource([mine, { kind: "conversation", recipientId: 5 }])).toEqual({ index: { recipientId: 5 } });
    expect(narrowSource([mine, { kind: "sender", userId: 20 }])).toEqual({ index: { senderId: 20 } });
    expect(narrowSource([mine, { kind: "direct" }])).toEqual({ index: { receivers: ME } });
    expect(narrowSource([{ kind: "channels", streamIds: [1] }])).toEqual({ index: {} });
    // a negated condition cannot choose the index
    expect(narrowSource([{ kind: "not", term: { kind: "channel", streamId: 1 } }])).toEqual({ index: {} });
    expect(narrowSource([mine, { kind: "ids", in: [3, 9] }])).toEqual({ ids: [3, 9] });
    expect(
      narrowSource([
        { kind: "id", id: 4 },
        { kind: "ids", in: [9] },
      ]),
    ).toEqual({ ids: [4] });
    expect(narrowSource([mine, { kind: "nothing" }])).toEqual({ none: true });
  });

  it("takes an ids condition's list as it is: ascending() makes a client's list so once", () => {
    const unread = [3, 7, 9];
    // the user's own lists are ascending: no copy, no sort at each read of a window
    expect(ascending(unread)).toBe(unread);
    expect(ascending([9, 3, 7, 3])).toEqual([3, 7, 9]);
    expect(ascending([])).toEqual([]);
  });
});

describe("has:, is:resolved, is:followed and muting", () => {
  it("has: the features stored with the message, and its reactions", () => {
    const has = (feature: "link" | "image" | "attachment" | "reaction") => narrowMatch([{ kind: "has", feature }]);
    const linked = message({ hasLink: true, hasImage: false, hasAttachment: false });
    expect(has("link")(linked)).toBe(true);
    expect(has("image")(linked)).toBe(false);
    expect(has("reaction")(linked)).toBe(false);
    const reaction = { emojiName: "smile", emojiCode: "1f604", reactionType: "unicode_emoji" as const, userId: 20 };
    expect(has("reaction")(message({ reactions: [reaction] }))).toBe(true);
  });

  it("is:resolved: a channel topic starting with the resolved prefix", () => {
    expect(narrowMatch([{ kind: "resolved" }])(message({ topic: "✔ done" }))).toBe(true);
    expect(narrowMatch([{ kind: "resolved" }])(message({ topic: "done ✔" }))).toBe(false);
  });

  it("muting: muted topics, and muted channels except their unmuted or followed topics", () => {
    const muted: NarrowCondition = {
      kind: "muted",
      channels: [1],
      topics: [{ streamId: 2, key: "noise" }],
      exempt: [{ streamId: 1, key: "hello" }],
    };
    expect(narrowMatch([muted])(message({}))).toBe(false);
    expect(narrowMatch([muted])(message({ topic: "Other", topicKey: "other" }))).toBe(true);
    expect(narrowMatch([muted])(message({ streamId: 2, topicKey: "noise" }))).toBe(true);
    expect(narrowMatch([muted])(dm)).toBe(false);
    expect(narrowMatch([{ kind: "not", term: muted }])(dm)).toBe(true);
  });

  it("is:followed and is:muted read their topics' and channels' indexes, within the narrow's channel", () => {
    const topics: NarrowCondition = {
      kind: "topics",
      topics: [
        { streamId: 1, key: "a" },
        { streamId: 2, key: "b" },
      ],
    };
    expect(narrowSource([mine, topics])).toEqual({
      union: [
        { streamId: 1, topicKey: "a" },
        { streamId: 2, topicKey: "b" },
      ],
    });
    expect(narrowSource([mine, { kind: "channel", streamId: 2 }, topics])).toEqual({
      union: [{ streamId: 2, topicKey: "b" }],
    });
    expect(narrowSource([mine, { kind: "channel", streamId: 3 }, topics])).toEqual({ none: true });
    const muted: NarrowCondition = {
      kind: "muted",
      channels: [1],
      topics: [
        { streamId: 1, key: "a" },
        { streamId: 2, key: "b" },
      ],
      exempt: [],
    };
    expect(narrowSource([mine, muted])).toEqual({ union: [{ streamId: 1 }, { streamId: 2, topicKey: "b" }] });
    // too many topics to read one by one: the narrow's other index, tested in memory
    const many = Array.from({ length: 17 }, (_, i) => ({ streamId: 1, key: `t${i}` }));
    expect(narrowSource([mine, { kind: "topics", topics: many }])).toEqual({
      union: [{ receivers: ME }, { streamId: 1 }],
    });
  });
});

describe("contentFeatures", () => {
  it("decides has:link, has:image and has:attachment from the HTML Zulip renders", () => {
    expect(contentFeatures("<p>plain</p>")).toEqual({ hasLink: false, hasImage: false, hasAttachment: false });
    expect(contentFeatures('<p><a href="https://example.com">x</a></p>')).toEqual({
      hasLink: true,
      hasImage: false,
      hasAttachment: false,
    });
    expect(contentFeatures('<p><a href="/user_uploads/2/ab/f.pdf">f.pdf</a></p>')).toEqual({
      hasLink: true,
      hasImage: false,
      hasAttachment: true,
    });
    expect(
      contentFeatures(
        '<p><a href="/user_uploads/2/ab/p.png">p.png</a></p>\n<div class="message_inline_image">' +
          '<a href="/user_uploads/2/ab/p.png" title="p.png"><img src="/user_uploads/thumbnail/2/ab/p.png/840x560.webp"></a></div>',
      ),
    ).toEqual({ hasLink: true, hasImage: true, hasAttachment: true });
    // an external image preview is an image, not an upload
    expect(
      contentFeatures(
        '<div class="message_inline_image"><a href="https://example.com/a.png"><img src="/external_content/x/y"></a></div>',
      ),
    ).toEqual({ hasLink: true, hasImage: true, hasAttachment: false });
  });
});
