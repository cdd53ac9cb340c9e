import { narrowToQuery, normalizeNarrow, searchWords, type NarrowResolver } from "../src/narrow";

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
    expect(await query([])).toEqual({ filter: { receivers: ME }, includeHistory: false });
  });

  it("a readable channel with shared history reaches its whole history", async () => {
    expect(
      await query([
        ["stream", "design"],
        ["topic", "Hello "],
      ]),
    ).toEqual({
      filter: { $and: [{ streamId: 1 }, { type: "stream", topicKey: "hello" }] },
      includeHistory: true,
    });
    expect((await query([{ operator: "channel", operand: "1" }])).filter).toEqual({ streamId: 1 });
  });

  it("protected history and flag filters keep to personal history", async () => {
    expect(await query([["stream", "vault"]])).toEqual({
      filter: { $and: [{ receivers: ME }, { streamId: 2 }] },
      includeHistory: false,
    });
    expect(
      await query([
        ["stream", "design"],
        ["is", "starred"],
      ]),
    ).toEqual({
      filter: { $and: [{ receivers: ME }, { streamId: 1 }, { messageId: { $in: [3] } }] },
      includeHistory: false,
    });
    expect((await query([["is", "unread"]])).filter).toEqual({
      $and: [{ receivers: ME }, { messageId: { $in: [7, 8] } }],
    });
  });

  it("the empty-topic display name means the empty topic", async () => {
    expect((await query([["topic", "general chat"]])).filter).toEqual({
      $and: [{ receivers: ME }, { type: "stream", topicKey: "" }],
    });
  });

  it("dm, sender, is:dm, id and negation", async () => {
    expect((await query([["dm", [20]]])).filter).toEqual({
      $and: [{ receivers: ME }, { type: "private", recipientId: 500 }],
    });
    expect((await query([["dm", "bob@example.com"]])).filter).toEqual({
      $and: [{ receivers: ME }, { type: "private", recipientId: 500 }],
    });
    expect(
      (await query([{ operator: "sender", operand: "bob@example.com", negated: true }, ["is", "dm"]])).filter,
    ).toEqual({
      $and: [{ receivers: ME }, { $nor: [{ senderId: 20 }] }, { type: "private" }],
    });
    expect((await query([["id", 42]])).filter).toEqual({ $and: [{ receivers: ME }, { messageId: 42 }] });
  });

  it("search: every word must match content or topic, case-insensitively, regex-escaped", async () => {
    const w = (s: string) => ({
      $or: [{ content: { $regex: s, $options: "i" } }, { topic: { $regex: s, $options: "i" } }],
    });
    expect(
      (
        await query([
          ["stream", "design"],
          ["search", 'cost 1.5 "two words"'],
        ])
      ).filter,
    ).toEqual({
      $and: [{ streamId: 1 }, { $and: [w("cost"), w("1\\.5"), w("two words")] }],
    });
    expect(searchWords('  a "b c"  d ')).toEqual(["a", "b c", "d"]);
  });

  it("channels:public reaches public channels' history", async () => {
    expect(await query([["channels", "public"]])).toEqual({
      filter: { streamId: { $in: [1, 4] } },
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
