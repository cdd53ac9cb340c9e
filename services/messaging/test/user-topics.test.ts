/**
 * Topic muting, unmuting and following (Zulip's update_user_topic and the
 * deprecated update_muted_topic): the errors, idempotence, register's
 * user_topics and muted_topics, the user_topic and muted_topics events, and
 * what muting changes in unread_msgs and update_message_flags.
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let design: number, ops: number, secret: number, quiet: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId, carol.userId]);
  ops = await createChannel(org, alice, "ops", [alice.userId, bob.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId], { invite_only: true });
  quiet = await createChannel(org, alice, "quiet", [alice.userId, carol.userId]);
});
afterAll(() => org?.stop());

const setPolicy = (user: TestUser, params: ParamsIn<typeof messaging.updateUserTopic>) =>
  org.call(messaging.updateUserTopic, params, user);
const muteTopic = (user: TestUser, params: ParamsIn<typeof messaging.updateMutedTopic>) =>
  org.call(messaging.updateMutedTopic, params, user);
const success = { result: "success", msg: "" };

interface TopicState {
  user_topics?: Array<{ stream_id: number; topic_name: string; last_updated: number; visibility_policy: number }>;
  muted_topics?: Array<[string, string, number]>;
}
const topicState = async (user: TestUser, fetch_event_types: string[], client_capabilities = {}) =>
  (await org.call(
    notifications.registerQueue,
    { fetch_event_types, client_capabilities },
    user,
  )) as unknown as TopicState;
const userTopics = async (user: TestUser, client_capabilities = {}) =>
  (await topicState(user, ["user_topic"], client_capabilities)).user_topics!.map(({ last_updated, ...t }) => {
    expect(last_updated).toBeGreaterThan(1_700_000_000);
    return t;
  });
const mutedTopics = async (user: TestUser) =>
  (await topicState(user, ["muted_topics"])).muted_topics!.map(([name, topic]) => [name, topic]);

const reader = (user: TestUser, params: Record<string, unknown> = {}) =>
  EventReader.register(org.api(user), { event_types: ["user_topic", "muted_topics"], ...params });
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
/** Waits for the events of one change more, proving that those before it were all there is. */
const changeMarker = async (user: TestUser, r: EventReader) => {
  const before = r.events.length;
  await setPolicy(user, { stream_id: design, topic: "marker", visibility_policy: 3 });
  await r.until((events) => events.some((e, i) => i >= before && e.topic_name === "marker"));
  await setPolicy(user, { stream_id: design, topic: "marker", visibility_policy: 0 });
  return r.events.slice(
    before,
    r.events.findIndex((e, i) => i >= before && e.topic_name === "marker"),
  );
};

describe("POST /user_topics", () => {
  it("mutes, follows, unmutes and removes a topic's policy; register and the user_topic events say so", async () => {
    const r = await reader(bob);
    const r2 = await reader(bob, { event_types: ["user_topic"] });
    expect(await setPolicy(bob, { stream_id: design, topic: "lunch", visibility_policy: 1 })).toEqual(success);
    expect(await userTopics(bob)).toEqual([{ stream_id: design, topic_name: "lunch", visibility_policy: 1 }]);
    const [muted] = await topicState(bob, ["user_topic"]).then((s) => s.user_topics!);

    // a queue that asked for both event types gets user_topic only
    const events = withoutIds(await r.until((e) => e.length >= 1));
    expect(events).toEqual([
      {
        type: "user_topic",
        stream_id: design,
        topic_name: "lunch",
        last_updated: muted!.last_updated,
        visibility_policy: 1,
      },
    ]);
    expect(withoutIds(await r2.until((e) => e.length >= 1))).toEqual(events);

    // the same topic, spelled otherwise: its policy changes, its first spelling stays
    await setPolicy(bob, { stream_id: design, topic: "LUNCH", visibility_policy: 3 });
    expect(await userTopics(bob)).toEqual([{ stream_id: design, topic_name: "lunch", visibility_policy: 3 }]);
    await setPolicy(bob, { stream_id: design, topic: "lunch", visibility_policy: 2 });
    expect(await userTopics(bob)).toEqual([{ stream_id: design, topic_name: "lunch", visibility_policy: 2 }]);
    await setPolicy(bob, { stream_id: design, topic: "lunch", visibility_policy: 0 });
    expect(await userTopics(bob)).toEqual([]);
    expect(withoutIds(await r.until((e) => e.length >= 4)).map((e) => [e.topic_name, e.visibility_policy])).toEqual([
      ["lunch", 1],
      ["LUNCH", 3],
      ["lunch", 2],
      ["lunch", 0],
    ]);
    // only Bob's queues hear of it
    const alices = await reader(alice);
    await changeMarker(bob, r);
    expect(await alices.drain()).toEqual([]);
  });

  it("is idempotent: the policy it has already, or none to remove, succeeds without events", async () => {
    await setPolicy(bob, { stream_id: ops, topic: "standup", visibility_policy: 1 });
    const [before] = (await topicState(bob, ["user_topic"])).user_topics!.filter((t) => t.stream_id === ops);
    const r = await reader(bob);
    expect(await setPolicy(bob, { stream_id: ops, topic: "standup", visibility_policy: 1 })).toEqual(success);
    expect(await setPolicy(bob, { stream_id: ops, topic: "never set", visibility_policy: 0 })).toEqual(success);
    expect(await changeMarker(bob, r)).toEqual([]);
    const [after] = (await topicState(bob, ["user_topic"])).user_topics!.filter((t) => t.stream_id === ops);
    expect(after).toEqual(before);
    await setPolicy(bob, { stream_id: ops, topic: "standup", visibility_policy: 0 });
  });

  it("takes the empty-topic display name for the empty topic, and shows it by the client's capability", async () => {
    const plain = await reader(carol);
    const modern = await reader(carol, { client_capabilities: { empty_topic_name: true } });
    await setPolicy(carol, { stream_id: design, topic: "general chat", visibility_policy: 3 });
    expect(await userTopics(carol, { empty_topic_name: true })).toEqual([
      { stream_id: design, topic_name: "", visibility_policy: 3 },
    ]);
    expect(await userTopics(carol)).toEqual([{ stream_id: design, topic_name: "general chat", visibility_policy: 3 }]);
    expect((await plain.until((e) => e.length >= 1))[0]!.topic_name).toBe("general chat");
    expect((await modern.until((e) => e.length >= 1))[0]!.topic_name).toBe("");
    // "" itself names the same topic
    await setPolicy(carol, { stream_id: design, topic: "", visibility_policy: 0 });
    expect(await userTopics(carol)).toEqual([]);
  });

  it("refuses a bad policy, a missing or over-long topic and channels the user cannot read, changing nothing", async () => {
    const r = await reader(bob);
    const post = (params: Record<string, unknown>, user: TestUser = bob) => org.api(user).post("/user_topics", params);
    await expectZulipError(
      post({ stream_id: design, topic: "t", visibility_policy: 4 }),
      badRequestError("Invalid visibility_policy"),
    );
    await expectZulipError(post({ stream_id: design, visibility_policy: 1 }), {
      ...badRequestError("Missing 'topic' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "topic",
    });
    await expectZulipError(
      post({ stream_id: design, topic: "x".repeat(61), visibility_policy: 1 }),
      badRequestError("topic is too long (limit: 60 characters)"),
    );
    // a private channel Bob is not in, a channel that does not exist, a public channel for a guest
    await expectZulipError(
      post({ stream_id: secret, topic: "t", visibility_policy: 1 }),
      badRequestError("Invalid channel ID"),
    );
    await expectZulipError(
      post({ stream_id: 999999, topic: "t", visibility_policy: 3 }),
      badRequestError("Invalid channel ID"),
    );
    await expectZulipError(
      post({ stream_id: ops, topic: "t", visibility_policy: 1 }, guest),
      badRequestError("Invalid channel ID"),
    );
    // removing needs only a channel of the organization (access may have been lost since)
    await expectZulipError(
      post({ stream_id: 999999, topic: "t", visibility_policy: 0 }),
      badRequestError("Invalid channel ID"),
    );
    expect(await setPolicy(bob, { stream_id: secret, topic: "t", visibility_policy: 0 })).toEqual(success);

    expect(await userTopics(bob)).toEqual([]);
    expect(await changeMarker(bob, r)).toEqual([]);
  });
});

describe("PATCH /users/me/subscriptions/muted_topics", () => {
  it("mutes by channel id or name and unmutes; register's muted_topics and the legacy event follow", async () => {
    const legacy = await reader(alice, { event_types: ["muted_topics"] });
    expect(await muteTopic(alice, { stream_id: design, topic: "retro", op: "add" })).toEqual(success);
    expect(await muteTopic(alice, { stream: "OPS", topic: "deploys", op: "add" })).toEqual(success);
    expect(await mutedTopics(alice)).toEqual([
      ["design", "retro"],
      ["ops", "deploys"],
    ]);
    expect(await userTopics(alice)).toEqual([
      { stream_id: design, topic_name: "retro", visibility_policy: 1 },
      { stream_id: ops, topic_name: "deploys", visibility_policy: 1 },
    ]);
    // a client asking for both gets user_topics only; one asking for neither gets both
    expect(Object.keys(await topicState(alice, ["muted_topics", "user_topic"]))).toContain("user_topics");
    expect(Object.keys(await topicState(alice, ["muted_topics", "user_topic"]))).not.toContain("muted_topics");

    const events = await legacy.until((e) => e.length >= 2);
    expect(
      withoutIds(events).map((e) => (e.muted_topics as unknown[][]).map(([name, topic]) => [name, topic])),
    ).toEqual([
      [["design", "retro"]],
      [
        ["design", "retro"],
        ["ops", "deploys"],
      ],
    ]);
    expect(events.every((e) => e.type === "muted_topics")).toBe(true);

    expect(await muteTopic(alice, { stream_id: design, topic: "Retro", op: "remove" })).toEqual(success);
    expect(await muteTopic(alice, { stream: "ops", topic: "deploys", op: "remove" })).toEqual(success);
    expect(await mutedTopics(alice)).toEqual([]);
    expect(withoutIds(await legacy.until((e) => e.length >= 4)).slice(2)).toEqual([
      { type: "muted_topics", muted_topics: [["ops", "deploys", expect.any(Number)]] },
      { type: "muted_topics", muted_topics: [] },
    ]);
  });

  it("mutes again or unmutes an unmuted topic without error (feature level 169)", async () => {
    await muteTopic(alice, { stream_id: design, topic: "twice", op: "add" });
    expect(await muteTopic(alice, { stream_id: design, topic: "twice", op: "add" })).toEqual(success);
    await muteTopic(alice, { stream_id: design, topic: "twice", op: "remove" });
    expect(await muteTopic(alice, { stream_id: design, topic: "twice", op: "remove" })).toEqual(success);
    expect(await mutedTopics(alice)).toEqual([]);
  });

  it("refuses anything but exactly one of stream_id and stream, a bad op and unknown channels", async () => {
    const patch = (params: Record<string, unknown>, user: TestUser = bob) =>
      org.api(user).patch("/users/me/subscriptions/muted_topics", params);
    await expectZulipError(patch({ topic: "t", op: "add" }), badRequestError("Missing 'stream_id' argument"));
    await expectZulipError(patch({ stream_id: design, stream: "design", topic: "t", op: "add" }), {
      ...badRequestError("Unsupported parameter combination: stream_id, stream"),
      parameters: "stream_id, stream",
    });
    await expectZulipError(patch({ stream_id: design, topic: "t", op: "toggle" }), badRequestError("Invalid op"));
    await expectZulipError(
      patch({ stream: "nope", topic: "t", op: "add" }),
      badRequestError("Invalid channel name 'nope'"),
    );
    await expectZulipError(
      patch({ stream: "secret", topic: "t", op: "add" }),
      badRequestError("Invalid channel name 'secret'"),
    );
    await expectZulipError(patch({ stream_id: secret, topic: "t", op: "add" }), badRequestError("Invalid channel ID"));
    await expectZulipError(patch({ stream: "nope", topic: "t", op: "remove" }), badRequestError("Topic is not muted"));
    await expectZulipError(
      patch({ stream_id: 999999, topic: "t", op: "remove" }),
      badRequestError("Topic is not muted"),
    );
    expect(await mutedTopics(bob)).toEqual([]);
  });
});

/** Mutes or unmutes the user's subscription to a channel as the subscription-properties operation will (it does not exist yet). */
async function setChannelMuted(user: TestUser, streamId: number, isMuted: boolean): Promise<void> {
  await org.call(
    messaging.updateSubscriptionProperties,
    { subscription_data: [{ stream_id: streamId, property: "is_muted", value: isMuted }] },
    user,
  );
}

describe("unread messages of muted topics and channels", () => {
  interface Unread {
    count: number;
    streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
    mentions: number[];
  }
  const unread = async (user: TestUser) =>
    (
      (await org.call(
        notifications.registerQueue,
        { fetch_event_types: ["message", "update_message_flags"] },
        user,
      )) as unknown as { unread_msgs: Unread }
    ).unread_msgs;
  const send = async (to: number, topic: string, content = "news") =>
    (await org.call(messaging.sendMessage, { type: "stream", to, topic, content }, alice)).id;
  const idsIn = (u: Unread, streamId: number, topic: string) =>
    u.streams.find((s) => s.stream_id === streamId && s.topic === topic)?.unread_message_ids ?? [];

  it("lists them but leaves them out of count, and wildcard mentions out of mentions (not personal ones)", async () => {
    const start = await unread(carol);
    const plain = await send(design, "muting");
    const wildcard = await send(design, "muting", "@**all** look");
    const personal = await send(design, "muting", "@**Carol** look");
    const elsewhere = await send(design, "open", "@**all** here");
    let u = await unread(carol);
    expect(u.count).toBe(start.count + 4);
    expect(u.mentions).toEqual(expect.arrayContaining([wildcard, personal, elsewhere]));

    await setPolicy(carol, { stream_id: design, topic: "Muting", visibility_policy: 1 });
    u = await unread(carol);
    expect(idsIn(u, design, "muting")).toEqual([plain, wildcard, personal]);
    expect(u.count).toBe(start.count + 1);
    expect(u.mentions).toEqual(expect.arrayContaining([personal, elsewhere]));
    expect(u.mentions).not.toContain(wildcard);

    await setPolicy(carol, { stream_id: design, topic: "muting", visibility_policy: 0 });
    expect((await unread(carol)).count).toBe(start.count + 4);
  });

  it("in a muted channel count only its unmuted and followed topics", async () => {
    await setChannelMuted(carol, quiet, true);
    // measured once muted: the channel's own messages so far (its creation notice) no longer count
    const start = await unread(carol);
    const a = await send(quiet, "a");
    const b = await send(quiet, "b");
    const c = await send(quiet, "c");
    let u = await unread(carol);
    expect(u.count).toBe(start.count);
    expect([idsIn(u, quiet, "a"), idsIn(u, quiet, "b"), idsIn(u, quiet, "c")]).toEqual([[a], [b], [c]]);

    await setPolicy(carol, { stream_id: quiet, topic: "a", visibility_policy: 2 });
    await setPolicy(carol, { stream_id: quiet, topic: "b", visibility_policy: 3 });
    await setPolicy(carol, { stream_id: quiet, topic: "c", visibility_policy: 1 });
    u = await unread(carol);
    expect(u.count).toBe(start.count + 2);

    await setChannelMuted(carol, quiet, false);
    // unmuted channel: only the muted topic is left out, and the creation notice counts again
    expect((await unread(carol)).count).toBe(start.count + 3);
  });

  it("update_message_flags marking unread says whether each message counts (unmuted_stream_msg)", async () => {
    const counted = await send(ops, "counted");
    const muted = await send(ops, "hushed");
    await setPolicy(bob, { stream_id: ops, topic: "hushed", visibility_policy: 1 });
    await org.call(messaging.updateMessageFlags, { messages: [counted, muted], op: "add", flag: "read" }, bob);
    const r = await EventReader.register(org.api(bob), { event_types: ["update_message_flags"] });
    await org.call(messaging.updateMessageFlags, { messages: [counted, muted], op: "remove", flag: "read" }, bob);
    const [event] = await r.until((e) => e.length >= 1);
    expect(event!.message_details).toEqual({
      [counted]: { type: "stream", stream_id: ops, topic: "counted", unmuted_stream_msg: true },
      [muted]: { type: "stream", stream_id: ops, topic: "hushed", unmuted_stream_msg: false },
    });
    await setPolicy(bob, { stream_id: ops, topic: "hushed", visibility_policy: 0 });
  });

  it("leaves the channel's topic list as it is", async () => {
    await send(ops, "listed");
    await setPolicy(bob, { stream_id: ops, topic: "listed", visibility_policy: 1 });
    const { topics } = await org.call(messaging.getStreamTopics, { stream_id: ops }, bob);
    expect(topics.map((t) => t.name)).toContain("listed");
    await setPolicy(bob, { stream_id: ops, topic: "listed", visibility_policy: 0 });
  });
});
