import { narrowFilter } from "../src/messages/message.repository";
import { narrowToQuery, normalizeNarrow, searchWords, type NarrowCondition, type NarrowResolver } from "../src/narrow";

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
  flagged: async (flag, has) => (flag === "read" && !has ? [7, 8] : flag === "starred" ? [3] : []),
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

  it("search: the words, quoted phrases kept whole", async () => {
    expect(
      (
        await query([
          ["stream", "design"],
          ["search", 'cost 1.5 "two words"'],
        ])
      ).terms,
    ).toEqual([
      { kind: "channel", streamId: 1 },
      { kind: "search", words: ["cost", "1.5", "two words"] },
    ]);
    expect(searchWords('  a "b c"  d ')).toEqual(["a", "b c", "d"]);
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

describe("MessageRepository's filter for a narrow", () => {
  it("one condition stands alone; several, and message ids, are all required", () => {
    expect(narrowFilter([mine])).toEqual({ receivers: ME });
    expect(narrowFilter([])).toEqual({});
    expect(narrowFilter([], { $in: [1, 2] })).toEqual({ messageId: { $in: [1, 2] } });
    expect(
      narrowFilter([
        { kind: "channel", streamId: 1 },
        { kind: "topic", key: "hello" },
      ]),
    ).toEqual({ $and: [{ streamId: 1 }, { type: "stream", topicKey: "hello" }] });
    expect(narrowFilter([mine, { kind: "ids", in: [7, 8] }], { $lt: 9 })).toEqual({
      $and: [{ receivers: ME }, { messageId: { $in: [7, 8] } }, { messageId: { $lt: 9 } }],
    });
  });

  it("dm, sender, is:dm, id, channels and negation", () => {
    expect(narrowFilter([{ kind: "conversation", recipientId: 500 }])).toEqual({ type: "private", recipientId: 500 });
    expect(narrowFilter([{ kind: "nothing" }])).toEqual({ messageId: -1 });
    expect(narrowFilter([{ kind: "dm-including", userIds: [20] }])).toEqual({
      type: "private",
      receivers: { $all: [20] },
    });
    expect(narrowFilter([{ kind: "not", term: { kind: "sender", userId: 20 } }, { kind: "direct" }])).toEqual({
      $and: [{ $nor: [{ senderId: 20 }] }, { type: "private" }],
    });
    expect(narrowFilter([{ kind: "id", id: 42 }])).toEqual({ messageId: 42 });
    expect(narrowFilter([{ kind: "channels", streamIds: [1, 4] }])).toEqual({ streamId: { $in: [1, 4] } });
  });

  it("search: every word must match content or topic, case-insensitively, regex-escaped", () => {
    const w = (s: string) => ({
      $or: [{ content: { $regex: s, $options: "i" } }, { topic: { $regex: s, $options: "i" } }],
    });
    expect(narrowFilter([{ kind: "search", words: ["cost", "1.5", "two words"] }])).toEqual({
      $and: [w("cost"), w("1\\.5"), w("two words")],
    });
  });
});
