import { messaging, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { expectZulipError, type ExpectedZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let channelId: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol } = await makeCast(org));
  channelId = await createChannel(org, alice, "narrows", [alice.userId, bob.userId, carol.userId]);
});
afterAll(() => org?.stop());

type GetParams = ParamsIn<typeof messaging.getMessages>;
type Narrow = NonNullable<GetParams["narrow"]>;
const send = async (user: Credentials, topic: string, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "narrows", topic, content }, user)).id;
const sendDm = async (user: Credentials, to: number[], content: string) =>
  (await org.call(messaging.sendMessage, { type: "private", to, content }, user)).id;
const fetch = (user: Credentials, narrow: Narrow, params: GetParams = {}) =>
  org.call(messaging.getMessages, { anchor: "newest", num_before: 100, num_after: 0, narrow, ...params }, user);
const ids = async (user: Credentials, narrow: Narrow) => (await fetch(user, narrow)).messages.map((m) => m.id);
const inTopic = (topic: string): Narrow => [
  ["stream", "narrows"],
  ["topic", topic],
];
const negated = (operator: string, operand: string | number) => ({ operator, operand, negated: true });
const badNarrow = (desc: string): ExpectedZulipError => ({
  status: 400,
  code: "BAD_NARROW",
  msg: `Invalid narrow operator: ${desc}`,
  desc,
});
const badOperand = (msg: string): ExpectedZulipError => ({ status: 400, code: "BAD_REQUEST", msg });

describe("has:", () => {
  let link: number;
  let upload: number;
  let plain: number;
  let reacted: number;
  beforeAll(async () => {
    link = await send(alice, "has", "see https://example.com");
    upload = await send(alice, "has", "[report.pdf](/user_uploads/1/ab/report.pdf)");
    plain = await send(alice, "has", "plain words");
    reacted = await send(alice, "has", "react to this");
    await org.call(messaging.addReaction, { message_id: reacted, emoji_name: "smile" }, bob);
  });

  it("link, attachment and reaction, and their negations", async () => {
    expect(await ids(bob, [...inTopic("has"), ["has", "link"]])).toEqual([link, upload]);
    expect(await ids(bob, [...inTopic("has"), ["has", "attachment"]])).toEqual([upload]);
    expect(await ids(bob, [...inTopic("has"), ["has", "reaction"]])).toEqual([reacted]);
    expect(await ids(bob, [...inTopic("has"), ["has", "image"]])).toEqual([]);
    expect(await ids(bob, [...inTopic("has"), negated("has", "link")])).toEqual([plain, reacted]);
    // without a channel: the user's personal history
    expect(await ids(bob, [{ operator: "has", operand: "attachment" }])).toEqual([upload]);
  });

  it("an edit decides them again", async () => {
    await org.call(messaging.updateMessage, { message_id: plain, content: "now with https://zulip.com" }, alice);
    expect(await ids(bob, [...inTopic("has"), ["has", "link"]])).toEqual([link, upload, plain]);
    await org.call(messaging.updateMessage, { message_id: plain, content: "plain again" }, alice);
    expect(await ids(bob, [...inTopic("has"), ["has", "link"]])).toEqual([link, upload]);
  });

  it("GET /messages/matches_narrow and POST /messages/flags/narrow mean the same", async () => {
    const matched = await org.call(
      messaging.matchesNarrow,
      { msg_ids: [link, upload, plain, reacted], narrow: [["has", "link"]] },
      bob,
    );
    expect(Object.keys(matched.messages).map(Number)).toEqual([link, upload]);
    const marked = await org.call(
      messaging.updateMessageFlagsForNarrow,
      {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow: [...inTopic("has"), ["has", "attachment"]],
        op: "add",
        flag: "starred",
      },
      bob,
    );
    expect(marked).toMatchObject({ processed_count: 1, updated_count: 1, first_processed_id: upload });
    expect(await ids(bob, [["is", "starred"]])).toEqual([upload]);
  });
});

describe("is:", () => {
  it("mentioned: personal and wildcard mentions alike, a topic wildcard for the topic's participants only", async () => {
    const personal = await send(alice, "mentions", "hi @**Bob**");
    // reacting makes Bob a participant of the topic (Zulip's participants_for_topic); Carol is not one
    await org.call(messaging.addReaction, { message_id: personal, emoji_name: "smile" }, bob);
    const wildcard = await send(alice, "mentions", "hi @**all**");
    const topicWide = await send(alice, "mentions", "hi @**topic**");
    const none = await send(alice, "mentions", "no one");
    expect(await ids(bob, [["is", "mentioned"]])).toEqual([personal, wildcard, topicWide]);
    expect(await ids(carol, [{ operator: "is", operand: "mentioned" }])).toEqual([wildcard]);
    expect(await ids(carol, [...inTopic("mentions"), negated("is", "mentioned")])).toEqual([personal, topicWide, none]);
  });

  it("resolved: topics marked resolved, keeping a channel's shared history", async () => {
    const done = await send(alice, "✔ fixed", "all good");
    const open = await send(alice, "fixing", "not yet");
    expect(
      await ids(bob, [
        ["stream", "narrows"],
        ["is", "resolved"],
      ]),
    ).toEqual([done]);
    const unresolved = await ids(bob, [["stream", "narrows"], negated("is", "resolved")]);
    expect(unresolved).toContain(open);
    expect(unresolved).not.toContain(done);
  });

  it("followed, muted and in:home: the user's topics and channels", async () => {
    const watched = await send(alice, "watched", "follow me");
    const noisy = await send(alice, "noisy", "mute me");
    const other = await send(alice, "quiet", "leave me");
    const topicPolicy = (topic: string, visibility_policy: 0 | 1 | 2 | 3) =>
      org.call(messaging.updateUserTopic, { stream_id: channelId, topic, visibility_policy }, bob);
    await topicPolicy("watched", 3);
    await topicPolicy("noisy", 1);
    const inChannel: Narrow = [["stream", "narrows"]];
    expect(await ids(bob, [["is", "followed"]])).toEqual([watched]);
    expect(await ids(bob, [...inChannel, ["is", "muted"]])).toEqual([noisy]);
    const home = await ids(bob, [...inChannel, ["in", "home"]]);
    expect(home).toEqual(expect.arrayContaining([watched, other]));
    expect(home).not.toContain(noisy);
    expect(await ids(bob, [...inChannel, ["in", "all"]])).toEqual(expect.arrayContaining([watched, noisy, other]));

    // a muted channel: everything in it is muted but its followed (or unmuted) topics
    await org.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id: channelId, property: "is_muted", value: true }] },
      bob,
    );
    const muted = await ids(bob, [...inChannel, ["is", "muted"]]);
    expect(muted).toEqual(expect.arrayContaining([noisy, other]));
    expect(muted).not.toContain(watched);
    expect(await ids(bob, [...inChannel, ["in", "home"]])).toEqual([watched]);
    await org.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id: channelId, property: "is_muted", value: false }] },
      bob,
    );
    await topicPolicy("noisy", 0);
    expect(await ids(bob, [...inChannel, ["is", "muted"]])).toEqual([]);
  });
});

describe("direct messages: dm, its legacy spellings, dm-including and group-pm-with", () => {
  let oneToOne: number;
  let group: number;
  let others: number;
  beforeAll(async () => {
    oneToOne = await sendDm(alice, [bob.userId], "just us");
    group = await sendDm(alice, [bob.userId, carol.userId], "the three of us");
    others = await sendDm(alice, [carol.userId], "not bob");
  });

  it("pm_with as zulip-term sends it, in the legacy list form and the object form", async () => {
    expect(await ids(bob, [["pm_with", alice.email]])).toEqual([oneToOne]);
    expect(await ids(bob, [{ operator: "pm_with", operand: alice.email }])).toEqual([oneToOne]);
    expect(await ids(bob, [["pm-with", `${alice.email},${carol.email}`]])).toEqual([group]);
    expect(await ids(bob, [{ operator: "dm", operand: [alice.userId, carol.userId] }])).toEqual([group]);
    expect(await ids(bob, [["is", "private"]])).toEqual([oneToOne, group]);
  });

  it("dm-including: every conversation with that user; group-pm-with: only group ones", async () => {
    expect(await ids(alice, [["dm-including", carol.userId]])).toEqual([group, others]);
    expect(await ids(alice, [["dm-including", carol.email]])).toEqual([group, others]);
    expect(await ids(alice, [["group-pm-with", carol.email]])).toEqual([group]);
    expect(await ids(alice, [{ operator: "group_pm_with", operand: carol.userId }])).toEqual([group]);
    expect(await ids(alice, [["dm-including", bob.userId], negated("dm-including", carol.userId)])).toEqual([oneToOne]);
  });
});

describe("id, near and with", () => {
  it("id: one message, or all but it; near only anchors, filtering nothing", async () => {
    const first = await send(alice, "ids", "one");
    const second = await send(alice, "ids", "two");
    expect(await ids(bob, [["id", first]])).toEqual([first]);
    expect(await ids(bob, [...inTopic("ids"), negated("id", first)])).toEqual([second]);
    expect(await ids(bob, [...inTopic("ids"), ["near", String(first)]])).toEqual([first, second]);
  });

  it("with: the conversation the message is in now, after it moved", async () => {
    const moved = await send(alice, "before move", "moving soon");
    const later = await send(alice, "after move", "already here");
    await org.call(
      messaging.updateMessage,
      { message_id: moved, topic: "after move", send_notification_to_new_thread: false },
      alice,
    );
    expect(await ids(bob, [...inTopic("before move"), ["with", moved]])).toEqual([moved, later]);
    expect(await ids(bob, [{ operator: "with", operand: String(moved) }])).toEqual([moved, later]);
    const dm = await sendDm(alice, [bob.userId], "with a dm");
    const conversation = await ids(bob, [["dm", alice.email]]);
    expect(conversation).toContain(dm);
    expect(await ids(bob, [["with", dm]])).toEqual(conversation);
    // a message bob may not see: the narrow's own conversation, or an error when it names none
    const hidden = await sendDm(alice, [carol.userId], "hidden");
    expect(await ids(bob, [...inTopic("after move"), ["with", hidden]])).toEqual([moved, later]);
    await expectZulipError(fetch(bob, [["with", hidden]]), badNarrow("Invalid 'with' operator"));
  });
});

describe("Zulip's errors", () => {
  it.each<[string, Narrow, ExpectedZulipError]>([
    ["an unknown operator", [["bogus", "x"]], badNarrow("unknown operator bogus")],
    ["an unknown is: operand", [["is", "weird"]], badNarrow("unknown 'is' operand weird")],
    ["an unknown has: operand", [["has", "links"]], badNarrow("unknown 'has' operand links")],
    ["an unknown in: operand", [["in", "away"]], badNarrow("unknown 'in' operand away")],
    ["an unknown channels: operand", [["channels", "mine"]], badNarrow("unknown channels operand mine")],
    ["a bad message id", [["id", "12a"]], badNarrow("Invalid message ID")],
    ["an unknown user in dm", [["pm_with", "nobody@example.com"]], badNarrow("unknown user in nobody@example.com")],
    ["an unknown user id in dm", [{ operator: "dm", operand: [999999] }], badNarrow("unknown user in [999999]")],
    ["an unknown user in dm-including", [["dm-including", 999999]], badNarrow("unknown user 999999")],
    ["a bad with operand", [["with", "x1"]], badNarrow("Invalid 'with' operator")],
    [
      "two with operators",
      [
        ["with", "1"],
        ["with", "2"],
      ],
      {
        status: 400,
        code: "BAD_NARROW",
        msg: "Invalid narrow operator combination: Duplicate 'with' operators.",
        desc: "Duplicate 'with' operators.",
      },
    ],
    [
      "a channel and a direct message",
      [
        ["stream", "narrows"],
        ["is", "dm"],
      ],
      badNarrow("No message can be both a channel message and direct message"),
    ],
    ["a non-string is: operand", [{ operator: "is", operand: 3 }], badOperand("operand is not a string")],
    ["a list for sender", [{ operator: "sender", operand: [3] }], badOperand("operand is not a string or integer")],
    ["a blank search", [["search", " "]], badOperand("operand cannot be blank.")],
  ])("%s", async (_what, narrow, error) => {
    await expectZulipError(fetch(bob, narrow), error);
  });
});

describe("event queues' narrows", () => {
  const messageIds = (events: ZulipEvent[]) =>
    events.filter((e) => e.type === "message").map((e) => (e as unknown as { message: { id: number } }).message.id);

  it("is:mentioned covers wildcard mentions; is:resolved the resolved topics", async () => {
    const mentions = await EventReader.register(org.api(carol), {
      event_types: ["message"],
      narrow: [["is", "mentioned"]],
    });
    const resolved = await EventReader.register(org.api(carol), {
      event_types: ["message"],
      narrow: [
        ["stream", "narrows"],
        ["is", "resolved"],
      ],
    });
    const wildcard = await send(alice, "events", "@**all** look");
    await send(alice, "events", "nothing to see");
    const done = await send(alice, "✔ events", "closed");
    expect(messageIds(await resolved.until((e) => messageIds(e).includes(done)))).toEqual([done]);
    await mentions.until((e) => messageIds(e).includes(wildcard));
    expect(messageIds(await mentions.drain())).toEqual([wildcard]);
  });

  it("register refuses the operators Zulip's event predicate does not support", async () => {
    const register = (narrow: string[][]) => org.api(carol).post("/register", { event_types: ["message"], narrow });
    await expectZulipError(register([["has", "link"]]), badOperand("Operator has not supported."));
    await expectZulipError(register([["is", "followed"]]), badOperand("Operand followed not supported."));
  });
});
