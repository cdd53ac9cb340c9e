/**
 * register's unread_msgs groups a user's unread messages without an entry per
 * message (PersonalView.unreadGroups); it must group exactly what the list of
 * entries (PersonalView.unread) holds, the 50,000 cap included.
 */
import { ChannelMessages, MAX_UNREAD_MESSAGES } from "../src/messages/channel-message-cache";
import {
  PersonalState,
  PersonalView,
  UnreadSet,
  type UnreadMessage,
  type UnreadTopic,
} from "../src/user-messages/personal-index";
import { OPEN, type ChannelReadState } from "../src/user-messages/read-state";

const ME = 1;
const OTHER = 2;

/** A channel of `count` messages with ids `first`, `first + step`, ...: a few topics spelt in two cases, some sent by me. */
function channel(first: number, step: number, count: number, topics: string[]): ChannelMessages {
  const entries = Array.from({ length: count }, (_, i) => {
    const topic = topics[i % topics.length]!;
    return {
      messageId: first + i * step,
      senderId: i % 97 === 0 ? ME : OTHER,
      topic: i % 2 ? topic.toUpperCase() : topic,
    };
  });
  return new ChannelMessages(entries, 0);
}

const direct = (id: number, participants: number[], mentioned = false): UnreadMessage => ({
  id,
  streamId: null,
  topic: "",
  topicKey: "",
  participants,
  mentioned,
});

/** What unreadGroups must equal: the entries of `unread`, grouped by channel and topic key in id order. */
function groupedEntries(view: PersonalView) {
  const topics = new Map<string, UnreadTopic>();
  for (const m of view.unread.messages()) {
    if (m.streamId === null) continue;
    const key = `${m.streamId}\n${m.topicKey}`;
    const group =
      topics.get(key) ?? topics.set(key, { streamId: m.streamId, topic: m.topic, ids: [], mentioned: [] }).get(key)!;
    group.ids.push(m.id);
    if (m.mentioned) group.mentioned.push(m.id);
  }
  return {
    direct: view.unread.messages().filter((m) => m.streamId === null),
    topics: [...topics.values()],
    olderMissing: view.unread.olderMissing,
  };
}

function view(channels: Array<[number, ChannelMessages, ChannelReadState]>, dms: UnreadMessage[]): PersonalView {
  const state = new PersonalState(
    new Map(channels.map(([id, , s]) => [id, s])),
    new Map(),
    new UnreadSet(dms),
    new Map(),
    -1,
    new Map(),
  );
  return new PersonalView(state, ME, new Map(channels.map(([id, c]) => [id, c])));
}

const subscribed = (watermark: number, exceptions: number[] = []): ChannelReadState => ({
  watermark,
  exceptions,
  intervals: [0, OPEN],
});

it("groups what the entries hold: topics by key in the order of their first id, my own messages read", () => {
  const v = view(
    [
      [10, channel(1, 2, 500, ["design", "Lunch", "release"]), subscribed(200, [3, 41, 43])],
      [20, channel(2, 2, 300, ["ops", "design"]), subscribed(0)],
    ],
    [direct(5, [ME, OTHER], true), direct(1001, [ME, OTHER, 3])],
  );
  const groups = v.unreadGroups();
  expect(groups).toEqual(groupedEntries(v));
  expect(groups.olderMissing).toBe(false);
  // the same topic in another channel is another group; each group's ids ascend, the groups by their first
  expect(groups.topics.filter((t) => t.topic.toLowerCase() === "design").map((t) => t.streamId)).toEqual([20, 10]);
  for (const t of groups.topics) expect(t.ids).toEqual([...t.ids].sort((a, b) => a - b));
  const firsts = groups.topics.map((t) => t.ids[0]!);
  expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
  // my own messages and what I read (below the watermark, but the exceptions) are not unread
  const unread = new Set(groups.topics.flatMap((t) => t.ids));
  expect([...unread].filter((id) => id <= 200 && ![3, 41, 43].includes(id) && id % 2 === 1)).toEqual([]);
  expect(unread.has(1)).toBe(false);
});

it("keeps the newest MAX_UNREAD_MESSAGES over channels and direct messages, the older missing", () => {
  const half = MAX_UNREAD_MESSAGES / 2 + 1000;
  const v = view(
    [
      [10, channel(1, 2, half, ["a", "b"]), subscribed(0)],
      [20, channel(2, 2, half, ["c"]), subscribed(0)],
    ],
    [direct(7, [ME, OTHER]), direct(4 * half, [ME, OTHER])],
  );
  const groups = v.unreadGroups();
  expect(groups).toEqual(groupedEntries(v));
  expect(groups.olderMissing).toBe(true);
  const ids = [...groups.direct.map((m) => m.id), ...groups.topics.flatMap((t) => t.ids)];
  expect(ids).toHaveLength(MAX_UNREAD_MESSAGES);
  // the old direct message is beyond the newest 50,000; the new one is in
  expect(groups.direct.map((m) => m.id)).toEqual([4 * half]);
});

it("counts as mentioned a stored mention flag, and an @all mention only of a message the user received", () => {
  // messages 1..10, those from 4 on received (subscribed after 3); 2, 5 and 8 mention the channel
  const wildcards = [2, 5, 8];
  const channelMessages = new ChannelMessages(
    Array.from({ length: 10 }, (_, i) => ({
      messageId: i + 1,
      senderId: OTHER,
      topic: "t",
      ...(wildcards.includes(i + 1) && { streamWildcard: true as const }),
    })),
    0,
  );
  // 2 is seen in the channel's history, marked unread: unread, but no @all mention of the user's
  const readState: ChannelReadState = { watermark: 3, exceptions: [2], intervals: [3, OPEN] };
  const state = new PersonalState(
    new Map([[10, readState]]),
    new Map(),
    new UnreadSet([]),
    new Map([
      [7, ["mentioned"]],
      // an @all mention stored in a row, as sends stored them before messages held them
      [9, ["stream_wildcard_mentioned", "wildcard_mentioned"]],
    ]),
    -1,
    new Map(),
  );
  const v = new PersonalView(state, ME, new Map([[10, channelMessages]]));
  const groups = v.unreadGroups();
  expect(groups).toEqual(groupedEntries(v));
  expect(groups.topics).toEqual([
    { streamId: 10, topic: "t", ids: [2, 4, 5, 6, 7, 8, 9, 10], mentioned: [5, 7, 8, 9] },
  ]);
  expect(
    [2, 5, 7, 9].map((id) =>
      v.of({
        messageId: id,
        streamId: 10,
        receivers: [],
        receivedBySubscription: true,
        senderId: OTHER,
        ...(wildcards.includes(id) && { streamWildcard: true as const }),
      }),
    ),
  ).toEqual([
    ["historical"],
    ["stream_wildcard_mentioned", "wildcard_mentioned"],
    ["mentioned"],
    ["stream_wildcard_mentioned", "wildcard_mentioned"],
  ]);
});
