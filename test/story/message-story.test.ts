/**
 * The first slice through every service, through HTTP only: users, a channel,
 * subscriptions, channel and direct messages, narrows, and the message and
 * typing events in exactly the right queues.
 */
import { ok } from "@teamchat/shared/src/testing/api";
import { EventReader, type ZulipEvent } from "../support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../support/organization";

let sys: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
const queues = new Map<string, EventReader>();

beforeAll(async () => {
  sys = await testOrganization();
  [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map((n) => sys.makeUser(n)));
  for (const u of [alice, bob, carol, dave]) {
    queues.set(
      u.email,
      await EventReader.register(sys.api(u), {
        event_types: ["message", "typing", "subscription"],
        // as the web and terminal clients do: HTML content in message events
        apply_markdown: true,
        client_capabilities: { stream_typing_notifications: true },
      }),
    );
  }
});
afterAll(() => sys?.stop());

const q = (u: TestUser) => queues.get(u.email)!;
const messageIds = (events: ZulipEvent[]) =>
  events.filter((e) => e.type === "message").map((e) => (e.message as { id: number }).id);

/**
 * The events `u` got before a marker of the same publisher: a service publishes
 * on one connection and notifications appends in arrival order, so once the
 * marker is in the queue, every earlier event for `u` is too.
 * - messages (messaging): `u` sends a direct message to themselves;
 * - typing (notifications): `u` starts typing to themselves.
 */
async function eventsBeforeMarker(u: TestUser, kind: "message" | "typing"): Promise<ZulipEvent[]> {
  let markerId = -1;
  if (kind === "typing") ok(await sys.api(u).post("/typing", { type: "direct", op: "start", to: [u.userId] }));
  else markerId = ok(await sys.api(u).post("/messages", { type: "direct", to: [u.userId], content: "marker" })).id;
  const isMarker = (e: ZulipEvent): boolean => {
    if (kind === "typing") return e.type === "typing" && (e.sender as { user_id: number }).user_id === u.userId;
    return e.type === "message" && (e.message as { id: number }).id === markerId;
  };
  const events = await q(u).until((es) => es.some(isMarker));
  const upTo = events.findIndex(isMarker);
  const before = events.slice(0, upTo);
  // start the next check from what follows the marker
  events.splice(0, upTo + 1);
  return before;
}

let channelId: number;
let channelMessage: number;
let directMessage: number;

it("alice creates a channel with bob; carol is subscribed by name later", async () => {
  const created = ok(
    await sys.api(alice).post("/channels/create", { name: "design", subscribers: [alice.userId, bob.userId] }),
  );
  channelId = created.id;
  const sub = ok(
    await sys
      .api(alice)
      .post("/users/me/subscriptions", { subscriptions: [{ name: "design" }], principals: [carol.email] }),
  );
  expect(sub.subscribed).toEqual({ [String(carol.userId)]: ["design"] });
  const carolSubs = ok(await sys.api(carol).get("/users/me/subscriptions")).subscriptions;
  expect(carolSubs.map((s: { name: string }) => s.name)).toEqual(["design"]);
  expect(carolSubs[0].color).toMatch(/^#[0-9a-f]{6}$/);
  expect(ok(await sys.api(dave).get("/users/me/subscriptions")).subscriptions).toEqual([]);
});

it("a channel message reaches every subscriber's queue and nobody else's", async () => {
  channelMessage = ok(
    await sys
      .api(alice)
      .post("/messages", { type: "stream", to: "design", topic: "kickoff", content: "Hello **team**" }),
  ).id;
  for (const u of [alice, bob, carol]) {
    const events = await q(u).until((es) => messageIds(es).includes(channelMessage));
    const event = events.find((e) => e.type === "message" && (e.message as { id: number }).id === channelMessage)!;
    expect(Object.keys(event).sort()).toEqual(["flags", "id", "message", "type"]);
    expect(event.message).toMatchObject({
      id: channelMessage,
      sender_id: alice.userId,
      sender_full_name: alice.fullName,
      display_recipient: "design",
      stream_id: channelId,
      subject: "kickoff",
      content: "<p>Hello <strong>team</strong></p>",
      type: "stream",
    });
    expect(event.flags).toEqual(u === alice ? ["read"] : []);
  }
  expect(messageIds(await eventsBeforeMarker(dave, "message"))).not.toContain(channelMessage);
});

it("a direct message reaches only the two people in it", async () => {
  directMessage = ok(await sys.api(alice).post("/messages", { type: "direct", to: [bob.userId], content: "psst" })).id;
  for (const u of [alice, bob]) {
    const events = await q(u).until((es) => messageIds(es).includes(directMessage));
    const event = events.find((e) => e.type === "message" && (e.message as { id: number }).id === directMessage)!;
    expect(event.message).toMatchObject({ type: "private", content: "<p>psst</p>", sender_id: alice.userId });
    expect(
      (event.message as { display_recipient: Array<{ id: number }> }).display_recipient.map((r) => r.id).sort(),
    ).toEqual([alice.userId, bob.userId].sort());
  }
  for (const u of [carol, dave])
    expect(messageIds(await eventsBeforeMarker(u, "message"))).not.toContain(directMessage);
});

it("each reader sees exactly what the narrows select", async () => {
  const fetch = async (u: TestUser, narrow: unknown[]) =>
    ok(await sys.api(u).get("/messages", { anchor: "newest", num_before: 50, num_after: 0, narrow }))
      .messages as Array<{ id: number }>;
  // the channel opened with Notification Bot's message in its "channel events" topic
  const [opening] = await fetch(bob, [
    ["stream", "design"],
    ["topic", "channel events"],
  ]);
  expect((await fetch(bob, [{ operator: "channel", operand: "design" }])).map((m) => m.id)).toEqual([
    opening!.id,
    channelMessage,
  ]);
  expect(
    (
      await fetch(carol, [
        ["stream", "design"],
        ["topic", "kickoff"],
      ])
    ).map((m) => m.id),
  ).toEqual([channelMessage]);
  expect((await fetch(bob, [{ operator: "dm", operand: [alice.userId] }])).map((m) => m.id)).toEqual([directMessage]);
  expect((await fetch(bob, [{ operator: "is", operand: "dm" }])).map((m) => m.id)).toEqual([directMessage]);
  expect((await fetch(bob, [{ operator: "sender", operand: alice.email }])).map((m) => m.id)).toEqual([
    channelMessage,
    directMessage,
  ]);
  expect((await fetch(bob, [{ operator: "search", operand: "team" }])).map((m) => m.id)).toEqual([channelMessage]);
  expect((await fetch(carol, [{ operator: "dm", operand: [alice.userId] }])).map((m) => m.id)).toEqual([]);
  expect((await fetch(bob, [{ operator: "is", operand: "unread" }])).map((m) => m.id)).toEqual([
    opening!.id,
    channelMessage,
    directMessage,
  ]);
});

// As in Zulip (zerver/actions/typing.py), everyone in the conversation is notified, the typist included.
it("typing in a direct conversation reaches the two people in it only", async () => {
  ok(await sys.api(alice).post("/typing", { type: "direct", op: "start", to: [bob.userId] }));
  for (const u of [alice, bob]) {
    const [typing] = (await q(u).until((es) => es.some((e) => e.type === "typing"))).filter((e) => e.type === "typing");
    expect(typing).toMatchObject({
      type: "typing",
      op: "start",
      message_type: "direct",
      sender: { user_id: alice.userId, email: alice.email },
    });
    expect((typing!.recipients as Array<{ user_id: number }>).map((r) => r.user_id).sort()).toEqual(
      [alice.userId, bob.userId].sort(),
    );
  }
  for (const u of [carol, dave]) {
    expect((await eventsBeforeMarker(u, "typing")).filter((e) => e.type === "typing")).toEqual([]);
  }
});

it("typing in a channel topic reaches the channel's subscribers only", async () => {
  ok(await sys.api(bob).post("/typing", { type: "stream", op: "start", stream_id: channelId, topic: "kickoff" }));
  for (const u of [alice, bob, carol]) {
    const events = await q(u).until((es) => es.some((e) => e.type === "typing" && e.stream_id === channelId));
    expect(events.find((e) => e.type === "typing" && e.stream_id === channelId)).toMatchObject({
      op: "start",
      message_type: "stream",
      stream_id: channelId,
      topic: "kickoff",
      sender: { user_id: bob.userId, email: bob.email },
    });
  }
  expect((await eventsBeforeMarker(dave, "typing")).filter((e) => e.type === "typing")).toEqual([]);
});
