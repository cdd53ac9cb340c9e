/** The read state of one user in one channel (read-state.ts): the default, its exceptions, and the canonical form. */
import {
  OPEN,
  allRead,
  canonical,
  closed,
  emptyReadState,
  isUnread,
  opened,
  received,
  forEachUnreadAbove,
  withStates,
  type ChannelMessageRef,
} from "../src/user-messages/read-state";

const ME = 7;
const OTHER = 8;
const msg = (id: number, senderId = OTHER): ChannelMessageRef => ({ id, senderId });
/** The channel's messages 11..20, one of them (15) the user's own. */
const channel = Array.from({ length: 10 }, (_, i) => msg(11 + i, 11 + i === 15 ? ME : OTHER));
const subscribedAt10 = opened(emptyReadState(), 10);
const above = (watermark: number) => channel.filter((m) => m.id > watermark);
/** The unread: the exceptions below the watermark, then the unread above it. */
const unreadIds = (s: typeof subscribedAt10, messages: ChannelMessageRef[], known: (id: number) => boolean) => {
  const found = s.exceptions.filter((id) => id <= s.watermark && known(id));
  const ids = messages.map((m) => m.id);
  forEachUnreadAbove(
    s,
    ME,
    ids,
    messages.map((m) => m.senderId),
    (i) => found.push(ids[i]!),
  );
  return found;
};
const unread = (s: typeof subscribedAt10) => unreadIds(s, channel, () => true);

describe("the default", () => {
  it("is unread for messages received above the watermark, but the user's own", () => {
    expect(unread(subscribedAt10)).toEqual([11, 12, 13, 14, 16, 17, 18, 19, 20]);
    expect(isUnread(subscribedAt10, msg(15, ME), ME)).toBe(false);
  });

  it("is read for messages sent outside the user's subscriptions", () => {
    const s = closed(opened(closed(subscribedAt10, 12), 16), OPEN);
    expect(s.intervals).toEqual([10, 12, 16, OPEN]);
    expect([11, 12, 13, 16, 17].map((id) => received(s, id))).toEqual([true, true, false, false, true]);
    expect(unread(s)).toEqual([11, 12, 17, 18, 19, 20]);
  });

  it("opens a subscription once and closes only an open one", () => {
    expect(opened(subscribedAt10, 30)).toBe(subscribedAt10);
    const s = closed(subscribedAt10, 20);
    expect(closed(s, 25)).toBe(s);
  });
});

describe("changes", () => {
  it("moves the watermark over what is read, leaving no exception behind", () => {
    const s = withStates(
      subscribedAt10,
      ME,
      [11, 12, 13].map((id) => ({ message: msg(id), unread: false })),
      above(10),
    );
    expect(s).toEqual({ watermark: 13, exceptions: [], intervals: [10, OPEN] });
    // the user's own message does not stop it
    const t = withStates(
      s,
      ME,
      [14, 16].map((id) => ({ message: msg(id), unread: false })),
      above(13),
    );
    expect(t.watermark).toBe(16);
    expect(t.exceptions).toEqual([]);
  });

  it("keeps a message read above an unread one as an exception, until the gap is read", () => {
    const s = withStates(subscribedAt10, ME, [{ message: msg(13), unread: false }], above(10));
    expect(s).toMatchObject({ watermark: 10, exceptions: [13] });
    expect(unread(s)).toEqual([11, 12, 14, 16, 17, 18, 19, 20]);
    const t = withStates(
      s,
      ME,
      [11, 12].map((id) => ({ message: msg(id), unread: false })),
      above(10),
    );
    expect(t).toMatchObject({ watermark: 13, exceptions: [] });
  });

  it("marks unread below the watermark, the user's own message included, and back", () => {
    const all = allRead(subscribedAt10, 20);
    expect(all).toEqual({ watermark: 20, exceptions: [], intervals: [10, OPEN] });
    const s = withStates(
      all,
      ME,
      [
        { message: msg(12), unread: true },
        { message: msg(15, ME), unread: true },
      ],
      [],
    );
    expect(s.exceptions).toEqual([12, 15]);
    expect(unread(s)).toEqual([12, 15]);
    expect(
      withStates(
        s,
        ME,
        [
          { message: msg(12), unread: false },
          { message: msg(15, ME), unread: false },
        ],
        [],
      ),
    ).toEqual(all);
  });

  it("collapses to a bare watermark when everything is read, whatever the order of changes", () => {
    let s = subscribedAt10;
    for (const id of [20, 13, 17, 11, 19, 12, 14, 16, 18]) {
      s = withStates(s, ME, [{ message: msg(id), unread: false }], above(s.watermark));
    }
    expect(s).toEqual({ watermark: 20, exceptions: [], intervals: [10, OPEN] });
  });

  it("keeps one message left unread as one exception below the watermark, however much is read after it", () => {
    let s = subscribedAt10;
    for (const id of [12, 13, 14, 16, 17, 18, 19, 20]) {
      s = withStates(s, ME, [{ message: msg(id), unread: false }], above(s.watermark));
    }
    expect(s).toEqual({ watermark: 20, exceptions: [11], intervals: [10, OPEN] });
    expect(unread(s)).toEqual([11]);
    expect(withStates(s, ME, [{ message: msg(11), unread: false }], above(s.watermark))).toEqual(allRead(s, 20));
  });

  it("leaves a message marked unread above the watermark where it is: the watermark stops before it", () => {
    const own = withStates(subscribedAt10, ME, [{ message: msg(15, ME), unread: true }], above(10));
    const s = canonical(
      withStates(
        own,
        ME,
        [11, 12, 13, 14].map((id) => ({ message: msg(id), unread: false })),
        [],
      ),
      ME,
      above(10),
    );
    expect(s).toMatchObject({ watermark: 14, exceptions: [15] });
    expect(unread(s)).toEqual([15, 16, 17, 18, 19, 20]);
  });

  it("reads every message below the watermark, whatever the newest message the channel holds", () => {
    // 12 marked unread, then moved out and in again: the channel's messages above the watermark are none
    const s = withStates(allRead(subscribedAt10, 20), ME, [{ message: msg(12), unread: true }], []);
    expect(allRead(s, 0)).toEqual({ watermark: 20, exceptions: [], intervals: [10, OPEN] });
    // a read message above the watermark stays an exception
    expect(allRead({ ...s, exceptions: [12, 25] }, 21)).toEqual({
      watermark: 21,
      exceptions: [25],
      intervals: [10, OPEN],
    });
  });

  it("ignores exceptions of messages no longer in the channel", () => {
    const s = withStates(allRead(subscribedAt10, 20), ME, [{ message: msg(12), unread: true }], []);
    expect(unreadIds(s, [], (id) => id !== 12)).toEqual([]);
  });
});
