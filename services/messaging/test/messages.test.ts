import { messaging, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as badRequest, expectZulipError, type ExpectedZulipError } from "../../../test/support/call";
import { recordDomainEvents } from "../../../test/support/domain-events";
import { createChannel as createChannelAs, makeCast, marker, messageEvents } from "./helpers";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  design = await createChannel(alice, "design", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

type SendParams = ParamsIn<typeof messaging.sendMessage>;
type GetParams = ParamsIn<typeof messaging.getMessages>;
type Messages = { messages: Array<Record<string, unknown>> };
/** Every new channel opens with Notification Bot's message in this topic; narrows that look at other messages leave it out. */
const notChannelEvents = { operator: "topic", operand: "channel events", negated: true };

const createChannel = (
  user: Credentials,
  name: string,
  subscribers: number[],
  extra: Partial<ParamsIn<typeof messaging.createChannel>> = {},
) => createChannelAs(org, user, name, subscribers, extra);
const send = (user: Credentials, params: SendParams) => org.call(messaging.sendMessage, params, user);
const sendOk = async (user: Credentials, params: SendParams) => (await send(user, params)).id;
const fetch = (user: Credentials, params: GetParams) =>
  org.call(messaging.getMessages, { anchor: "newest", num_before: 100, num_after: 0, ...params }, user);
const ids = (body: Messages) => body.messages.map((m) => m.id);
const subscribe = (user: Credentials, channel: string, principals: number[]) =>
  org.call(messaging.subscribe, { subscriptions: [{ name: channel }], principals }, user);
const topics = (user: Credentials, streamId: number, allowEmpty?: boolean) =>
  org.call(messaging.getStreamTopics, { stream_id: streamId, allow_empty_topic_name: allowEmpty }, user);

describe("POST /messages to a channel", () => {
  it("stores the message, renders Markdown, and GET /messages returns Zulip's message object", async () => {
    const recorder = await recordDomainEvents(org, "messaging");
    const res = await send(alice, {
      type: "stream",
      to: "design",
      topic: "colors",
      content: "**bold** <i>x</i> https://zulip.com",
    });
    expect(Object.keys(res).sort()).toEqual(["id", "msg", "result"]);
    const body = await fetch(bob, {
      narrow: [
        { operator: "channel", operand: "design" },
        { operator: "topic", operand: "colors" },
      ],
    });
    expect(body).toMatchObject({ found_anchor: false, found_newest: true, found_oldest: true, history_limited: false });
    expect(body.anchor).toBe(10000000000000000);
    expect(body.messages).toEqual([
      {
        id: res.id,
        sender_id: alice.userId,
        sender_email: alice.email,
        sender_full_name: "Alice",
        sender_realm_str: org.subdomain,
        avatar_url: null,
        client: "TeamchatTests",
        content: '<p><strong>bold</strong> &lt;i&gt;x&lt;/i&gt; <a href="https://zulip.com">https://zulip.com</a></p>',
        content_type: "text/html",
        display_recipient: "design",
        is_me_message: false,
        reactions: [],
        recipient_id: expect.any(Number),
        stream_id: design,
        subject: "colors",
        submessages: [],
        timestamp: expect.any(Number),
        topic_links: [],
        type: "stream",
        flags: [],
      },
    ]);
    const raw = await fetch(alice, {
      narrow: [["stream", "design"], notChannelEvents],
      apply_markdown: false,
      client_gravatar: false,
    });
    expect(raw.messages[0]).toMatchObject({
      content: "**bold** <i>x</i> https://zulip.com",
      content_type: "text/x-markdown",
      flags: ["read"],
    });
    expect(raw.messages[0]!.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\//);

    const events = messageEvents(await recorder.before(await marker(org)));
    recorder.stop();
    expect(events).toHaveLength(1);
    expect(events[0]!.userIds).toEqual([alice.userId, bob.userId].sort((a, b) => a - b));
    // only the receivers the message marks are listed: bob, unread and unmentioned, has no flags
    expect(events[0]!.flags).toEqual({ [alice.userId]: ["read"] });
    // nobody's settings ask for every message of the channel
    expect(events[0]!.notifiableUserIds).toEqual([]);
    expect(events[0]!.message).toEqual({
      ...raw.messages[0],
      ...body.messages[0],
      avatar_url: raw.messages[0]!.avatar_url,
      flags: undefined,
    });
  });

  it("`to` by id or one-element list; `subject` as the topic's old name; the channel's first_message_id", async () => {
    const id1 = await sendOk(alice, { type: "channel", to: design, subject: "by-id", content: "one" });
    const id2 = await sendOk(alice, { type: "stream", to: JSON.stringify(["design"]), topic: "by-id", content: "two" });
    const body = await fetch(alice, {
      narrow: [
        { operator: "stream", operand: design },
        { operator: "topic", operand: "BY-ID" },
      ],
    });
    expect(ids(body)).toEqual([id1, id2]);
    const first = (
      await fetch(alice, { anchor: "oldest", num_before: 0, num_after: 1, narrow: [["stream", "design"]] })
    ).messages[0]!;
    expect((await org.call(messaging.getStreamById, { stream_id: design }, alice)).stream.first_message_id).toBe(
      first.id,
    );
  });

  it("the empty topic: allowed, sent as the display name too, shown as the display name unless allow_empty_topic_name", async () => {
    const a = await sendOk(alice, { type: "stream", to: "design", topic: "", content: "empty" });
    const b = await sendOk(alice, { type: "stream", to: "design", topic: "general chat", content: "display name" });
    const shown = await fetch(alice, {
      narrow: [
        ["stream", "design"],
        ["topic", ""],
      ],
    });
    expect(ids(shown)).toEqual([a, b]);
    expect(shown.messages.map((m) => m.subject)).toEqual(["general chat", "general chat"]);
    const raw = await fetch(alice, {
      narrow: [
        ["stream", "design"],
        ["topic", "general chat"],
      ],
      allow_empty_topic_name: true,
    });
    expect(raw.messages.map((m) => m.subject)).toEqual(["", ""]);
  });

  it("over-long topics and contents are truncated as Zulip does", async () => {
    const id = await sendOk(alice, { type: "stream", to: "design", topic: "t".repeat(70), content: "c".repeat(10010) });
    const msg = (await fetch(alice, { narrow: [["id", id]], apply_markdown: false })).messages[0]!;
    expect(msg.subject).toBe("t".repeat(57) + "...");
    expect(msg.content).toBe("c".repeat(10000 - 20) + "\n[message truncated]");
    expect((msg.content as string).length).toBe(10000);
  });

  it("refuses bad sends with Zulip's errors", async () => {
    await expectZulipError(send(alice, { type: "stream", to: "nowhere", topic: "x", content: "hi" }), {
      status: 400,
      code: "STREAM_DOES_NOT_EXIST",
      msg: "Channel 'nowhere' does not exist",
      stream: "nowhere",
    });
    await expectZulipError(send(alice, { type: "stream", to: 999999, topic: "x", content: "hi" }), {
      status: 400,
      code: "STREAM_DOES_NOT_EXIST",
      msg: "Channel with ID '999999' does not exist",
      stream_id: 999999,
    });
    await expectZulipError(send(alice, { type: "stream", to: "design", topic: "x", content: "  \n " }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Message must not be empty",
    });
    await expectZulipError(send(alice, { type: "stream", to: "design", content: "no topic" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Missing topic",
    });
    // Parameters the contract's types refuse: raw HTTP, as a client could send them.
    await expectZulipError(org.api(alice).post("/messages", { type: "stream", to: "design", topic: "x" }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'content' argument",
      var_name: "content",
    });
    await expectZulipError(
      org.api(alice).post("/messages", { type: "email", to: "design", topic: "x", content: "y" }),
      {
        status: 400,
        code: "BAD_REQUEST",
        msg: "Invalid type",
      },
    );
  });

  it("permissions: private channels need a subscription; can_send_message_group limits senders", async () => {
    const noPermission: ExpectedZulipError = {
      status: 400,
      code: "BAD_REQUEST",
      msg: "You do not have permission to post in this channel.",
    };
    await createChannel(alice, "private-room", [alice.userId], { invite_only: true });
    await expectZulipError(send(bob, { type: "stream", to: "private-room", topic: "x", content: "let me in" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Not authorized to send to channel 'private-room'",
    });
    await sendOk(alice, { type: "stream", to: "private-room", topic: "x", content: "mine" });
    await createChannel(alice, "announcements", [alice.userId, bob.userId], {
      can_send_message_group: { direct_members: [alice.userId], direct_subgroups: [] },
    });
    await expectZulipError(send(bob, { type: "stream", to: "announcements", topic: "x", content: "hi" }), noPermission);
    await sendOk(alice, { type: "stream", to: "announcements", topic: "x", content: "news" });
    // administrators through a system group
    await createChannel(alice, "admins-only", [alice.userId], { can_send_message_group: 2 });
    await expectZulipError(send(alice, { type: "stream", to: "admins-only", topic: "x", content: "hi" }), noPermission);
    await sendOk(org.owner, { type: "stream", to: "admins-only", topic: "x", content: "hi" });
    // a public channel takes messages from members who are not subscribed
    await sendOk(carol, { type: "stream", to: "design", topic: "drive-by", content: "hello" });
    // but not from guests, who may only post where they are subscribed
    await expectZulipError(send(guest, { type: "stream", to: "design", topic: "x", content: "hi" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Not authorized to send to channel 'design'",
    });
    await subscribe(alice, "announcements", [guest.userId]);
    await expectZulipError(
      send(guest, { type: "stream", to: "announcements", topic: "x", content: "hi" }),
      noPermission,
    );
    await createChannel(alice, "guest-room", [alice.userId, guest.userId]);
    await sendOk(guest, { type: "stream", to: "guest-room", topic: "x", content: "hello from a guest" });
  });

  it("a private channel given by id to a sender who may not see it is answered as a missing one", async () => {
    // Zulip's refusal would name the channel, telling anyone trying ids the names of private channels
    const hidden = await createChannel(alice, "hidden-by-id", [alice.userId], { invite_only: true });
    const missing = (id: number): ExpectedZulipError => ({
      status: 400,
      code: "STREAM_DOES_NOT_EXIST",
      msg: `Channel with ID '${id}' does not exist`,
      stream_id: id,
    });
    await expectZulipError(send(bob, { type: "stream", to: hidden, topic: "x", content: "hi" }), missing(hidden));
    await expectZulipError(send(bob, { type: "stream", to: 999_999, topic: "x", content: "hi" }), missing(999_999));
    // administrators see the channel's name, so they are told why
    await expectZulipError(send(org.owner, { type: "stream", to: hidden, topic: "x", content: "hi" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Not authorized to send to channel 'hidden-by-id'",
    });
  });

  it("a mention sets the mentioned flag for the mentioned user only", async () => {
    const id = await sendOk(alice, { type: "stream", to: "design", topic: "mentions", content: "hi @**Bob**" });
    expect((await fetch(bob, { narrow: [["id", id]] })).messages[0]!.flags).toEqual(["mentioned"]);
    expect(ids(await fetch(bob, { narrow: [{ operator: "is", operand: "mentioned" }] }))).toEqual([id]);
    expect((await fetch(alice, { narrow: [["id", id]] })).messages[0]!.flags).toEqual(["read"]);
  });
});

describe("direct messages", () => {
  it("1:1 conversations share one recipient_id in both directions; group DMs have their own", async () => {
    const recorder = await recordDomainEvents(org, "messaging");
    const a = await sendOk(alice, { type: "private", to: JSON.stringify([bob.userId]), content: "hi bob" });
    const b = await sendOk(bob, { type: "direct", to: JSON.stringify([alice.email]), content: "hi alice" });
    const g = await sendOk(carol, { type: "direct", to: JSON.stringify([alice.userId, bob.userId]), content: "all" });
    const events = messageEvents(await recorder.before(await marker(org)));
    recorder.stop();
    expect(events.map((e) => e.userIds)).toEqual([
      [alice.userId, bob.userId].sort((x, y) => x - y),
      [alice.userId, bob.userId].sort((x, y) => x - y),
      [alice.userId, bob.userId, carol.userId].sort((x, y) => x - y),
    ]);
    expect(events[2]!.flags[carol.userId]).toEqual(["read"]);

    const mine = await fetch(alice, { narrow: [{ operator: "dm", operand: [bob.userId] }] });
    expect(ids(mine)).toEqual([a, b]);
    expect(mine.messages[0]!.recipient_id).toBe(mine.messages[1]!.recipient_id);
    expect(mine.messages[0]).toMatchObject({
      type: "private",
      subject: "",
      display_recipient: [
        { id: alice.userId, email: alice.email, full_name: "Alice", is_mirror_dummy: false },
        { id: bob.userId, email: bob.email, full_name: "Bob", is_mirror_dummy: false },
      ],
    });
    expect(mine.messages[0]).not.toHaveProperty("stream_id");
    const group = await fetch(bob, { narrow: [["dm", `${alice.email},${carol.email}`]] });
    expect(ids(group)).toEqual([g]);
    expect(group.messages[0]!.recipient_id).not.toBe(mine.messages[0]!.recipient_id);
    expect(ids(await fetch(carol, { narrow: [["is", "private"]] }))).toEqual([g]);
    // nobody else sees them (the guest has only Notification Bot's "subscribed you" messages)
    const guestDms = await fetch(guest, { narrow: [{ operator: "is", operand: "dm" }] });
    expect(guestDms.messages.filter((m) => m.sender_email !== "notification-bot@zulip.com")).toEqual([]);
  });

  it("refuses unknown recipients", async () => {
    await expectZulipError(send(alice, { type: "private", to: JSON.stringify([424242]), content: "x" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid user ID 424242",
    });
    await expectZulipError(send(alice, { type: "private", to: JSON.stringify(["ghost@example.com"]), content: "x" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid email 'ghost@example.com'",
    });
    await expectZulipError(send(alice, { type: "private", to: "[]", content: "x" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Message must have recipients",
    });
  });
});

describe("GET /messages", () => {
  let seq: number[];
  beforeAll(async () => {
    await createChannel(alice, "ranges", [alice.userId, bob.userId]);
    seq = [];
    for (let i = 0; i < 5; i++) {
      seq.push(await sendOk(alice, { type: "stream", to: "ranges", topic: `n${i % 2}`, content: `number ${i} Apple` }));
    }
  });
  const inRanges: { narrow: NonNullable<GetParams["narrow"]> } = { narrow: [["stream", "ranges"], notChannelEvents] };
  const get = (params: GetParams) => org.call(messaging.getMessages, params, bob);

  it("anchors: integer, oldest, newest, first_unread; include_anchor; found_* flags", async () => {
    const around = await fetch(bob, { ...inRanges, anchor: seq[2], num_before: 1, num_after: 1 });
    expect(ids(around)).toEqual([seq[1], seq[2], seq[3]]);
    expect(around).toMatchObject({ anchor: seq[2], found_anchor: true, found_oldest: false, found_newest: false });
    const excluded = await fetch(bob, {
      ...inRanges,
      anchor: String(seq[2]),
      num_before: 5,
      num_after: 0,
      include_anchor: false,
    });
    expect(ids(excluded)).toEqual([seq[0], seq[1]]);
    expect(excluded).toMatchObject({ found_anchor: false, found_oldest: true, found_newest: false });
    const oldest = await fetch(bob, { ...inRanges, anchor: "oldest", num_before: 0, num_after: 2 });
    expect(ids(oldest)).toEqual([seq[0], seq[1]]);
    expect(oldest).toMatchObject({ anchor: 0, found_oldest: true, found_newest: false });
    const newest = await fetch(bob, { ...inRanges, anchor: "newest", num_before: 2, num_after: 3 });
    expect(ids(newest)).toEqual([seq[3], seq[4]]);
    expect(newest).toMatchObject({ found_newest: true, found_oldest: false });
    // Bob has read nothing: first unread is the first message; Alice's are read, so her anchor is "newest"
    const unread = await fetch(bob, { ...inRanges, anchor: "first_unread", num_before: 0, num_after: 1 });
    expect(unread).toMatchObject({ anchor: seq[0], found_anchor: true });
    const legacy = await fetch(bob, {
      ...inRanges,
      anchor: undefined,
      use_first_unread_anchor: true,
      num_before: 0,
      num_after: 1,
    });
    expect(legacy.anchor).toBe(seq[0]);
    const aliceUnread = await fetch(alice, { ...inRanges, anchor: "first_unread", num_before: 1, num_after: 1 });
    expect(aliceUnread).toMatchObject({ anchor: 10000000000000000, found_newest: true });
    expect(ids(aliceUnread)).toEqual([seq[4]]);
  });

  it("a narrow whose messages are far apart in a long history: pages, anchors and found_* stay exact", async () => {
    // MessageRepository reads ranges of ids, widened as it goes: 70 other messages between each of
    // these make every read below need more than one range.
    await createChannel(alice, "sparse", [alice.userId, bob.userId]);
    await createChannel(alice, "busy", [alice.userId, bob.userId]);
    const sparse: number[] = [];
    for (let i = 0; i < 3; i++) {
      sparse.push(await sendOk(alice, { type: "stream", to: "sparse", topic: "rare", content: `rare ${i}` }));
      for (let j = 0; j < 70; j++) await sendOk(bob, { type: "stream", to: "busy", topic: "chatter", content: `${j}` });
    }
    const inSparse: GetParams["narrow"] = [{ operator: "channel", operand: "sparse" }, notChannelEvents];
    const newest = await fetch(bob, { narrow: inSparse, num_before: 2 });
    expect(ids(newest)).toEqual([sparse[1], sparse[2]]);
    expect(newest).toMatchObject({ found_oldest: false, found_newest: true });
    const all = await fetch(bob, { narrow: inSparse, num_before: 5 });
    expect(ids(all)).toEqual(sparse);
    expect(all).toMatchObject({ found_oldest: true });
    const oldest = await fetch(bob, { narrow: inSparse, anchor: "oldest", num_before: 0, num_after: 2 });
    expect(ids(oldest)).toEqual([sparse[0], sparse[1]]);
    expect(oldest).toMatchObject({ found_oldest: true, found_newest: false });
    const around = await fetch(bob, { narrow: inSparse, anchor: sparse[1], num_before: 1, num_after: 1 });
    expect(ids(around)).toEqual(sparse);
    expect(around).toMatchObject({ found_anchor: true, found_oldest: false, found_newest: false });
    // an anchor that is not in the narrow: the neighbours on each side
    const between = await fetch(bob, { narrow: inSparse, anchor: sparse[1]! + 1, num_before: 1, num_after: 1 });
    expect(ids(between)).toEqual([sparse[1], sparse[2]]);
    expect(between).toMatchObject({ found_anchor: false });
    const byTopic = await fetch(bob, {
      narrow: [...inSparse, { operator: "topic", operand: "RARE" }],
      anchor: "first_unread",
      num_before: 0,
      num_after: 10,
    });
    expect(byTopic).toMatchObject({ anchor: sparse[0], found_newest: true });
    expect(ids(byTopic)).toEqual(sparse);
    const fromAlice = await fetch(bob, { narrow: [{ operator: "sender", operand: alice.userId }], num_before: 2 });
    expect(ids(fromAlice)).toEqual([sparse[1], sparse[2]]);
  });

  it("message_ids returns the accessible subset and no anchor", async () => {
    const body = await get({ message_ids: [seq[1]!, seq[3]!, 999999] });
    expect(ids(body)).toEqual([seq[1], seq[3]]);
    // in any order, oldest first
    expect(ids(await get({ message_ids: [999999, seq[3]!, seq[1]!] }))).toEqual([seq[1], seq[3]]);
    expect(body).toMatchObject({
      found_anchor: false,
      found_newest: false,
      found_oldest: false,
      history_limited: false,
    });
    expect(body).not.toHaveProperty("anchor");
    const dm = await sendOk(alice, { type: "private", to: JSON.stringify([bob.userId]), content: "secret" });
    // without a channel narrow, only what the user received (Zulip's personal history)
    expect(ids(await org.call(messaging.getMessages, { message_ids: [dm, seq[0]!] }, carol))).toEqual([]);
    const narrowed = await org.call(
      messaging.getMessages,
      { message_ids: [dm, seq[0]!], narrow: [["stream", "ranges"]] },
      carol,
    );
    expect(ids(narrowed)).toEqual([seq[0]]);
  });

  it("refuses bad ranges with Zulip's errors", async () => {
    await expectZulipError(get({ anchor: "newest", num_after: 0 }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'num_before' argument",
      var_name: "num_before",
    });
    await expectZulipError(get({ anchor: "newest", num_before: 0 }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'num_after' argument",
      var_name: "num_after",
    });
    await expectZulipError(get({ message_ids: [1], num_before: 1, num_after: 0 }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
      parameters: "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
    });
    await expectZulipError(
      get({ anchor: "newest", num_before: 4000, num_after: 1001 }),
      badRequest("Too many messages requested (maximum 5000)."),
    );
    await expectZulipError(get({ anchor: "sideways", num_before: 1, num_after: 0 }), badRequest("Invalid anchor"));
    await expectZulipError(
      get({ anchor: 5, num_before: 1, num_after: 1, include_anchor: false }),
      badRequest("The anchor can only be excluded at an end of the range"),
    );
    const badNarrow = (desc: string) => ({ ...badRequest(`Invalid narrow operator: ${desc}`, "BAD_NARROW"), desc });
    await expectZulipError(
      get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["stream", "nope"]] }),
      badNarrow("unknown channel nope"),
    );
    await expectZulipError(
      get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["sender", "x@nowhere"]] }),
      badNarrow("unknown user x@nowhere"),
    );
    await expectZulipError(
      get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["bogus", "x"]] }),
      badNarrow("unknown operator bogus"),
    );
  });

  it("narrows: sender, search (all words, case-insensitive, content and topic), negation, is:unread", async () => {
    const other = await sendOk(bob, { type: "stream", to: "ranges", topic: "apple pie", content: "from bob" });
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["sender", bob.email]] }))).toEqual([other]);
    expect(
      ids(
        await fetch(alice, {
          narrow: [...inRanges.narrow, { operator: "sender", operand: bob.userId, negated: true }],
        }),
      ),
    ).toEqual(seq);
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["search", "APPLE number"]] }))).toEqual(seq);
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["search", "apple"]] }))).toEqual([...seq, other]);
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["search", "number 3"]] }))).toEqual([seq[3]]);
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["topic", "n1"]] }))).toEqual([seq[1], seq[3]]);
    expect(
      ids(await fetch(alice, { narrow: [...inRanges.narrow, { operator: "topic", operand: "n1", negated: true }] })),
    ).toEqual([seq[0], seq[2], seq[4], other]);
    expect(ids(await fetch(alice, { narrow: [...inRanges.narrow, ["is", "unread"]] }))).toEqual([other]);
    expect(ids(await fetch(bob, { narrow: [...inRanges.narrow, ["is", "unread"]] }))).toEqual(seq);
  });
});

describe("channel history", () => {
  const unknownChannel = (name: string): ExpectedZulipError => ({
    status: 400,
    code: "BAD_NARROW",
    msg: `Invalid narrow operator: unknown channel ${name}`,
    desc: `unknown channel ${name}`,
  });

  it("public channels: later subscribers and non-subscribers read the whole history, flagged historical", async () => {
    const old = await sendOk(alice, { type: "stream", to: "design", topic: "history", content: "before carol" });
    const body = await fetch(carol, {
      narrow: [
        ["stream", "design"],
        ["topic", "history"],
      ],
    });
    expect(ids(body)).toEqual([old]);
    expect(body.messages[0]!.flags).toEqual(["read", "historical"]);
    // but not in her personal history (no channel narrow)
    expect(ids(await fetch(carol, {}))).not.toContain(old);
    // guests cannot read public channels they are not in
    await expectZulipError(
      fetch(guest, { anchor: "newest", num_before: 5, num_after: 0, narrow: [["stream", "design"]] }),
      unknownChannel("design"),
    );
  });

  it("private channels with protected history: a later subscriber sees only what was sent after joining", async () => {
    const id = await createChannel(alice, "vault", [alice.userId], { invite_only: true });
    const before = await sendOk(alice, { type: "stream", to: "vault", topic: "old", content: "before bob" });
    await subscribe(alice, "vault", [bob.userId]);
    const after = await sendOk(alice, { type: "stream", to: "vault", topic: "new", content: "after bob" });
    expect(ids(await fetch(bob, { narrow: [["stream", "vault"]] }))).toEqual([after]);
    expect(ids(await fetch(alice, { narrow: [["stream", "vault"], notChannelEvents] }))).toEqual([before, after]);
    expect(ids(await org.call(messaging.getMessages, { message_ids: [before, after] }, bob))).toEqual([after]);
    expect(
      ids(
        await fetch(bob, {
          narrow: [
            ["stream", "vault"],
            ["search", "bob"],
          ],
        }),
      ),
    ).toEqual([after]);
    expect(ids(await fetch(alice, { narrow: [["search", "vault bob"]] }))).toEqual([]);
    expect((await topics(bob, id)).topics).toEqual([{ name: "new", max_id: after }]);
    expect((await topics(alice, id)).topics).toEqual([
      { name: "new", max_id: after },
      { name: "old", max_id: before },
      { name: "channel events", max_id: expect.any(Number) },
    ]);
  });

  it("a member who leaves and comes back keeps what they received while subscribed, and only that", async () => {
    await createChannel(alice, "comings", [alice.userId, bob.userId], { invite_only: true });
    const word = "goingsandcomings";
    const sent = (content: string) => sendOk(alice, { type: "stream", to: "comings", topic: "t", content });
    const whileIn = await sent(`${word} while in`);
    await org.call(messaging.unsubscribe, { subscriptions: ["comings"] }, bob);
    const whileOut = await sent(`${word} while out`);
    await subscribe(alice, "comings", [bob.userId]);
    const back = await sent(`${word} back`);
    const flagsOf = async (id: number) => (await org.call(messaging.getMessage, { message_id: id }, bob)).message.flags;
    // received, not historical; read, as leaving marks the channel read (Zulip's bulk_remove_subscriptions)
    expect(await flagsOf(whileIn)).toEqual(["read"]);
    expect(await flagsOf(back)).toEqual([]);
    await expectZulipError(
      org.call(messaging.getMessage, { message_id: whileOut }, bob),
      badRequest("Invalid message(s)"),
    );
    // personal history, the channel's, and a search (PostgreSQL's index): the same two
    expect(ids(await fetch(bob, {}))).toEqual(expect.arrayContaining([whileIn, back]));
    expect(ids(await fetch(bob, {}))).not.toContain(whileOut);
    expect(ids(await fetch(bob, { narrow: [["stream", "comings"], notChannelEvents] }))).toEqual([whileIn, back]);
    expect(ids(await fetch(bob, { narrow: [["search", word]] }))).toEqual([whileIn, back]);
    expect(ids(await fetch(alice, { narrow: [["search", word]] }))).toEqual([whileIn, whileOut, back]);
  });

  it("private channels with shared history: a later subscriber sees everything", async () => {
    await createChannel(alice, "shared-vault", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const before = await sendOk(alice, { type: "stream", to: "shared-vault", topic: "old", content: "before" });
    await expectZulipError(
      fetch(bob, { anchor: "newest", num_before: 5, num_after: 0, narrow: [["stream", "shared-vault"]] }),
      unknownChannel("shared-vault"),
    );
    await subscribe(alice, "shared-vault", [bob.userId]);
    expect(ids(await fetch(bob, { narrow: [["stream", "shared-vault"], notChannelEvents] }))).toEqual([before]);
  });
});

describe("GET /users/me/{stream_id}/topics", () => {
  it("lists topics by recency with their newest message; the empty topic by its display name", async () => {
    const id = await createChannel(alice, "topical", [alice.userId]);
    const a = await sendOk(alice, { type: "stream", to: "topical", topic: "Alpha", content: "1" });
    const e = await sendOk(alice, { type: "stream", to: "topical", topic: "", content: "2" });
    const a2 = await sendOk(alice, { type: "stream", to: "topical", topic: "alpha", content: "3" });
    expect(a).toBeLessThan(a2);
    expect((await topics(bob, id)).topics).toEqual([
      { name: "alpha", max_id: a2 },
      { name: "general chat", max_id: e },
      { name: "channel events", max_id: expect.any(Number) },
    ]);
    expect((await topics(bob, id, true)).topics[1]).toEqual({ name: "", max_id: e });
  });

  it("nonexistent or inaccessible channels → Invalid channel ID", async () => {
    const invalid = badRequest("Invalid channel ID");
    const priv = await createChannel(alice, "topics-private", [alice.userId], { invite_only: true });
    await expectZulipError(topics(bob, priv), invalid);
    await expectZulipError(topics(bob, 999999), invalid);
    await expectZulipError(topics(guest, design), invalid);
  });
});
