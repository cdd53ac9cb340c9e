/** A channel's messages as read state holds them in memory (ChannelMessages): loaded from a floor, extended back. */
import { ChannelMessages } from "../src/messages/channel-message-cache";

const entries = (ids: number[]) => ids.map((id) => ({ messageId: id, senderId: id % 2, topic: `t${id % 3}` }));

describe("ChannelMessages", () => {
  it("holds the messages above its floor in order, and tells what is above a watermark only when it holds all of it", () => {
    const c = new ChannelMessages(entries([30, 10, 20]), 5);
    expect(c.ids).toEqual([10, 20, 30]);
    expect(c.topicOf(20)).toBe("t2");
    expect(c.allAbove(10).map((m) => m.id)).toEqual([20, 30]);
    // below the floor some messages may be missing: the watermark must not move over them
    expect(c.allAbove(3)).toEqual([]);
    expect(c.above(3).map((m) => m.id)).toEqual([10, 20, 30]);
  });

  it("extends back to a lower floor, ignoring what it holds already, and keeps new messages in order", () => {
    const c = new ChannelMessages(entries([10, 20]), 5);
    c.extend(entries([2, 4, 10, 20]), 1);
    expect(c.ids).toEqual([2, 4, 10, 20]);
    expect(c.floor).toBe(1);
    c.extend(entries([0]), 3);
    expect(c.ids).toEqual([2, 4, 10, 20]);
    c.add({ messageId: 25, senderId: 1, topic: "x" });
    c.add({ messageId: 22, senderId: 1, topic: "y" });
    expect(c.ids).toEqual([2, 4, 10, 20, 22, 25]);
    c.remove([4, 22]);
    c.retopic([25], "z");
    expect(c.ids).toEqual([2, 10, 20, 25]);
    expect(c.senders).toEqual([0, 0, 0, 1]);
    expect(c.topicOf(25)).toBe("z");
  });

  it("holds which messages mention the whole channel, as they are loaded, sent, edited and dropped", () => {
    const c = new ChannelMessages(
      [...entries([10, 20]), { messageId: 30, senderId: 1, topic: "t", streamWildcard: true }],
      5,
    );
    expect([10, 20, 30].filter((id) => c.mentionsChannel(id))).toEqual([30]);
    c.extend([{ messageId: 4, senderId: 1, topic: "t", streamWildcard: true }], 1);
    c.add({ messageId: 40, senderId: 1, topic: "t", streamWildcard: true });
    c.setWildcard(20, true);
    c.setWildcard(30, false);
    // a message not held is left to the runs' load
    c.setWildcard(99, true);
    expect([4, 10, 20, 30, 40, 99].filter((id) => c.mentionsChannel(id))).toEqual([4, 20, 40]);
    c.remove([40]);
    expect(c.mentionsChannel(40)).toBe(false);
  });

  it("lists the ids between two bounds, of one topic (any case) and one sender when asked", () => {
    const c = new ChannelMessages(entries([1, 2, 3, 4, 5, 6, 7, 8, 9]), 0);
    c.retopic([4], "T1");
    expect(c.between(2, 8)).toEqual([3, 4, 5, 6, 7]);
    expect(c.between(0, Infinity, { topicKey: "t1" })).toEqual([1, 4, 7]);
    expect(c.between(0, Infinity, { topicKey: "t1", senderId: 1 })).toEqual([1, 7]);
    expect(c.between(9, Infinity)).toEqual([]);
  });
});
