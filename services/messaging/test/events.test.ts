import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser, type TestUser } from "../../../test/support/users";

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  alice = await makeUser(sys, "Alice", 400, "Alice");
  bob = await makeUser(sys, "Bob", 400, "Bob");
  carol = await makeUser(sys, "Carol", 400, "Carol");
});
afterAll(() => sys?.stop());

/** A queue for `user` and a reader of what arrives in it (every reply is checked against zulip.yaml). */
async function queue(user: TestUser, event_types: string[]) {
  const { queue_id } = ok(await sys.api(user).post("/register", { event_types, fetch_event_types: [] }));
  let last = -1;
  return async (): Promise<Array<Record<string, unknown>>> => {
    await new Promise((r) => setTimeout(r, 150));
    const { events } = ok(await sys.api(user).get("/events", { queue_id, last_event_id: last, dont_block: true }));
    if (events.length) last = events[events.length - 1].id;
    return events.filter((e: { type: string }) => e.type !== "heartbeat");
  };
}

describe("events through notifications' queues", () => {
  it("channel creation and subscription: stream create, subscription add, peer_add to the right users", async () => {
    const [aliceEvents, bobEvents, carolEvents] = await Promise.all([
      queue(alice, ["stream", "subscription"]),
      queue(bob, ["stream", "subscription"]),
      queue(carol, ["stream", "subscription"]),
    ]);
    const { id } = ok(await sys.api(alice).post("/channels/create", { name: "news", subscribers: [alice.userId] }));
    ok(
      await sys
        .api(alice)
        .post("/users/me/subscriptions", { subscriptions: [{ name: "news" }], principals: [bob.userId] }),
    );

    const a = await aliceEvents();
    expect(a.map((e) => [e.type, e.op])).toEqual([
      ["stream", "create"],
      ["subscription", "add"],
      ["subscription", "peer_add"],
    ]);
    expect(a[2]).toMatchObject({ stream_ids: [id], user_ids: [bob.userId] });
    const b = await bobEvents();
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
    const c = await carolEvents();
    expect(c.map((e) => [e.type, e.op])).toEqual([
      ["stream", "create"],
      ["subscription", "peer_add"],
      ["subscription", "peer_add"],
    ]);
  });

  it("private channels are announced only to their subscribers (and administrators)", async () => {
    const carolEvents = await queue(carol, ["stream", "subscription"]);
    const ownerQueue = ok(
      await sys.api(sys.owner).post("/register", { event_types: ["stream"], fetch_event_types: [] }),
    );
    ok(
      await sys.api(alice).post("/channels/create", { name: "hidden", subscribers: [alice.userId], invite_only: true }),
    );
    expect(await carolEvents()).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    const owner = ok(
      await sys.api(sys.owner).get("/events", { queue_id: ownerQueue.queue_id, last_event_id: -1, dont_block: true }),
    );
    expect(owner.events.map((e: { type: string; op: string }) => `${e.type}:${e.op}`)).toEqual(["stream:create"]);
  });

  it("message events reach exactly the recipients, each with their flags", async () => {
    const [aliceEvents, bobEvents, carolEvents] = await Promise.all([
      queue(alice, ["message"]),
      queue(bob, ["message"]),
      queue(carol, ["message"]),
    ]);
    const { id } = ok(
      await sys.api(alice).post("/messages", { type: "stream", to: "news", topic: "hi", content: "hey @**Bob**" }),
    );
    const dm = ok(
      await sys.api(alice).post("/messages", { type: "private", to: JSON.stringify([carol.userId]), content: "x" }),
    );
    const a = await aliceEvents();
    expect(a.map((e) => [(e.message as { id: number }).id, e.flags])).toEqual([
      [id, ["read"]],
      [dm.id, ["read"]],
    ]);
    const b = await bobEvents();
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ type: "message", flags: ["mentioned"] });
    expect(b[0]!.message).toMatchObject({
      id,
      sender_id: alice.userId,
      display_recipient: "news",
      subject: "hi",
      type: "stream",
    });
    const c = await carolEvents();
    expect(c.map((e) => (e.message as { id: number }).id)).toEqual([dm.id]);
  });

  it("a renamed sender shows with the new name at once (identity's realm_user events drop the cache)", async () => {
    const send = () => sys.api(bob).post("/messages", { type: "stream", to: "news", topic: "names", content: "me" });
    ok(await send());
    const names = async () =>
      ok(
        await sys
          .api(alice)
          .get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [["topic", "names"]] }),
      ).messages.map((m: { sender_full_name: string }) => m.sender_full_name);
    expect(await names()).toEqual(["Bob"]);
    ok(await sys.api(sys.owner).patch(`/users/${bob.userId}`, { full_name: "Robert" }));
    await new Promise((r) => setTimeout(r, 150));
    expect(await names()).toEqual(["Robert"]);
  });
});
