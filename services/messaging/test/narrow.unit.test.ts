import { narrowMatch, narrowSource } from "../src/messages/message.repository";
import type { MessageDoc } from "../src/messages/message.schema";
import { narrowToQuery, normalizeNarrow, type NarrowCondition, type NarrowResolver } from "../src/narrow";

const ME = 10;
const resolver: NarrowResolver = {
  userId: ME,
  emptyTopicName: "general chat",
  channel: async (operand) =>
    operand === "design" || operand === 1
      ? { streamId: 1, fullHistory: true }
      : operand === "vault"
        ? { streamId: 2, fullHistory: false }
        : null,
  users: async (ops) => (ops.every((o) => o === 20 || o === "bob@example.com") ? ops.map(() => 20) : null),
  conversation: async (ids) => ([...ids].sort().join() === "10,20" ? 500 : null),
  flagged: async (flag) => (flag === "starred" ? [3] : []),
  unread: async () => [7, 8],
  publicChannels: async () => [1, 4],
};
const query = (raw: unknown[]) =>
  narrowToQuery(normalizeNarrow(raw as Parameters<typeof normalizeNarrow>[0]), resolver);
const mine: NarrowCondition = { kind: "receivers", userId: ME };

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

  it("search: the operand as given, for the search engine; a blank one is no condition", async () => {
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
    expect((await query([["search", "  "]])).terms).toEqual([mine]);
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
    await fails([["has", "link"]], "Invalid narrow operator: unknown operator has");
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
  it("matches a message only when every condition holds", () => {
    const m = message({});
    expect(narrowMatch([])(m)).toBe(true);
    expect(narrowMatch([mine, { kind: "channel", streamId: 1 }, { kind: "topic", key: "hello" }])(m)).toBe(true);
    expect(narrowMatch([mine, { kind: "channel", streamId: 2 }])(m)).toBe(false);
    expect(narrowMatch([{ kind: "receivers", userId: 99 }])(m)).toBe(false);
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
    expect(narrowSource([mine, { kind: "ids", in: [9, 3] }])).toEqual({ ids: [3, 9] });
    expect(
      narrowSource([
        { kind: "id", id: 4 },
        { kind: "ids", in: [9] },
      ]),
    ).toEqual({ ids: [4] });
    expect(narrowSource([mine, { kind: "nothing" }])).toEqual({ none: true });
  });
});
