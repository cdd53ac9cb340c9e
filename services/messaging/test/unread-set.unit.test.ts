import { MAX_UNREAD_MESSAGES, UnreadSet } from "../src/user-messages/unread-set";
import type { UnreadBucketDoc } from "../src/user-messages/unread-bucket.schema";

const bucket = (over: Partial<UnreadBucketDoc>): UnreadBucketDoc => ({
  _id: "x",
  realmId: 1,
  userId: 9,
  streamId: 7,
  topic: "Lunch",
  participants: [],
  block: 0,
  ids: [],
  mentions: [],
  direct: [],
  ...over,
});

describe("UnreadSet", () => {
  it("groups a summary by conversation, drops repeats, and orders everything by id", () => {
    const set = UnreadSet.fromSummary([
      bucket({ ids: [5, 3, 5], mentions: [3] }),
      bucket({ topic: "lunch", block: 1, ids: [9000] }),
      bucket({ streamId: null, topic: "", participants: [2, 9], ids: [4], mentions: [4], direct: [4] }),
    ]);
    expect(set.ids).toEqual([3, 4, 5, 9000]);
    expect(set.conversations().map((c) => [c.place.streamId, c.place.topic, c.ids])).toEqual([
      [7, "Lunch", [3, 5, 9000]],
      [null, "", [4]],
    ]);
    expect(set.mentions()).toEqual([3, 4]);
    expect(set.isDirectlyMentioned(4)).toBe(true);
    expect(set.idsIn(7, "lunch")).toEqual([3, 5, 9000]);
    expect(set.olderMissing).toBe(false);
  });

  it("keeps the newest MAX_UNREAD_MESSAGES and says older ones are missing", () => {
    const ids = Array.from({ length: MAX_UNREAD_MESSAGES + 2 }, (_, i) => i + 1);
    const set = UnreadSet.fromSummary([bucket({ ids, mentions: [1, ids.at(-1)!] })]);
    expect(set.size).toBe(MAX_UNREAD_MESSAGES);
    expect(set.ids[0]).toBe(3);
    expect(set.olderMissing).toBe(true);
    expect(set.mentions()).toEqual([ids.at(-1)]);
  });

  it("moves, removes and re-mentions messages, dropping emptied conversations", () => {
    const set = UnreadSet.fromSummary([bucket({ ids: [1, 2, 3], mentions: [2] })]);
    set.move([2, 3], { topic: "Dinner" });
    expect(set.conversations().map((c) => [c.place.topic, c.ids])).toEqual([
      ["Lunch", [1]],
      ["Dinner", [2, 3]],
    ]);
    expect(set.mentions()).toEqual([2]);
    set.setMentioned(3, ["wildcard_mentioned"]);
    set.setMentioned(2, []);
    expect(set.mentions()).toEqual([3]);
    set.remove([1]);
    expect(set.conversations().map((c) => c.place.topic)).toEqual(["Dinner"]);
    set.add({ id: 10, streamId: null, topic: "", participants: [9], mentioned: false, direct: false });
    expect(set.ids).toEqual([2, 3, 10]);
    set.clear();
    expect([set.size, set.conversations().length]).toEqual([0, 0]);
  });
});
