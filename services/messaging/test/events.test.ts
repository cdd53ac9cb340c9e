import { identity, messaging, type ParamsIn } from "@teamchat/shared";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 400, "Carol");
});
afterAll(() => org?.stop());

/** A queue for `user` and a reader of what arrives in it (every reply is checked against zulip.yaml). */
const queue = (user: TestUser, event_types: string[]) =>
  EventReader.register(org.api(user), { event_types, fetch_event_types: [] });

/**
 * The events that arrived before the marker, which the test causes after the
 * writes it looks at: once the marker is in the queue, so is everything
 * earlier, and "these and nothing else" needs no sleep. Taken from the reader.
 */
async function before(reader: EventReader, isMarker: (e: ZulipEvent) => boolean): Promise<ZulipEvent[]> {
  await reader.until((events) => events.some(isMarker));
  return reader.events.splice(0, reader.events.findIndex(isMarker) + 1).slice(0, -1);
}

let markers = 0;
/** A new public channel without subscribers: a stream create event for every member. */
async function channelMarker(): Promise<(e: ZulipEvent) => boolean> {
  const name = `marker-${++markers}`;
  await org.call(messaging.createChannel, { name, subscribers: [] }, org.owner);
  return (e) => e.type === "stream" && (e.streams as Array<{ name: string }>)[0]!.name === name;
}

/** A group direct message from the owner to `users`: a message event for each of them. */
async function messageMarker(users: TestUser[]): Promise<(e: ZulipEvent) => boolean> {
  const to = users.map((u) => u.userId);
  const { id } = await org.call(messaging.sendMessage, { type: "private", to, content: "marker" }, org.owner);
  return (e) => e.type === "message" && (e.message as { id: number }).id === id;
}

const send = (user: TestUser, params: ParamsIn<typeof messaging.sendMessage>) =>
  org.call(messaging.sendMessage, params, user);

describe("events through notifications' queues", () => {
  it("channel creation and subscription: stream create, subscription add, peer_add to the right users", async () => {
    const [aliceEvents, bobEvents, carolEvents] = await Promise.all([
      queue(alice, ["stream", "subscription"]),
      queue(bob, ["stream", "subscription"]),
      queue(carol, ["stream", "subscription"]),
    ]);
    const { id } = await org.call(messaging.createChannel, { name: "news", subscribers: [alice.userId] }, alice);
    await org.call(messaging.subscribe, { subscriptions: [{ name: "news" }], principals: [bob.userId] }, alice);
    const isMarker = await channelMarker();

    const a = await before(aliceEvents, isMarker);
    expect(a.map((e) => [e.type, e.op])).toEqual([
      ["stream", "create"],
      ["subscription", "add"],
      ["subscription", "peer_add"],
    ]);
    expect(a[2]).toMatchObject({ stream_ids: [id], user_ids: [bob.userId] });
    const b = await before(bobEvents, isMarker);
    expect(b.map((e) => [e.type, e.op])).toEqual([
      ["stream", "create"],
      ["subscription", "peer_add"],
      ["subscription", "add"],
    ]);
    expect(b[1]).toMatchObject({ stream_ids: [id], user_ids: [alice.userId] });
    expect((b[2]!.subscriptions as Array<{ name: string; subscribers: number[] }>)[0]).toMatchObject({
      name: "news",
      subscribers: [alice.userId, bob.userId].sort((x, y) => x - y),
    });
    const c = await before(carolEvents, isMarker);
    expect(c.map((e) => [e.type, e.op])).toEqual([
      ["stream", "create"],
      ["subscription", "peer_add"],
      ["subscription", "peer_add"],
    ]);
  });

  it("private channels are announced only to their subscribers (and administrators)", async () => {
    const [carolEvents, ownerEvents] = await Promise.all([
      queue(carol, ["stream", "subscription"]),
      queue(org.owner, ["stream"]),
    ]);
    await org.call(messaging.createChannel, { name: "hidden", subscribers: [alice.userId], invite_only: true }, alice);
    const isMarker = await channelMarker();
    expect(await before(carolEvents, isMarker)).toEqual([]);
    const owner = await before(ownerEvents, isMarker);
    expect(owner.map((e) => `${e.type}:${e.op}`)).toEqual(["stream:create"]);
  });

  it("message events reach exactly the recipients, each with their flags", async () => {
    const [aliceEvents, bobEvents, carolEvents] = await Promise.all([
      queue(alice, ["message"]),
      queue(bob, ["message"]),
      queue(carol, ["message"]),
    ]);
    const { id } = await send(alice, { type: "stream", to: "news", topic: "hi", content: "hey @**Bob**" });
    const dm = await send(alice, { type: "private", to: JSON.stringify([carol.userId]), content: "x" });
    const isMarker = await messageMarker([alice, bob, carol]);
    const a = await before(aliceEvents, isMarker);
    expect(a.map((e) => [(e.message as { id: number }).id, e.flags])).toEqual([
      [id, ["read"]],
      [dm.id, ["read"]],
    ]);
    const b = await before(bobEvents, isMarker);
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ type: "message", flags: ["mentioned"] });
    expect(b[0]!.message).toMatchObject({
      id,
      sender_id: alice.userId,
      display_recipient: "news",
      subject: "hi",
      type: "stream",
    });
    const c = await before(carolEvents, isMarker);
    expect(c.map((e) => (e.message as { id: number }).id)).toEqual([dm.id]);
  });

  it("a renamed sender shows with the new name at once (identity's realm_user events drop the cache)", async () => {
    await send(bob, { type: "stream", to: "news", topic: "names", content: "me" });
    const names = async () =>
      (
        await org.call(
          messaging.getMessages,
          { anchor: "newest", num_before: 5, num_after: 0, narrow: [["topic", "names"]] },
          alice,
        )
      ).messages.map((m) => m.sender_full_name);
    expect(await names()).toEqual(["Bob"]);
    await org.call(identity.updateUser, { user_id: bob.userId, full_name: "Robert" }, org.owner);
    // The event reaches messaging asynchronously: ask until it shows, well within the
    // directory's 30 s cache lifetime, so only the event can have refreshed it.
    const deadline = Date.now() + 5_000;
    let shown = await names();
    while (shown[0] !== "Robert" && Date.now() < deadline) shown = await names();
    expect(shown).toEqual(["Robert"]);
  });
});
