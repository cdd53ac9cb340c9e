import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { createChannel } from "./helpers";
import { makeUser, type TestUser } from "../../../test/support/users";

let sys: TestSystem;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let design: number;
let vault: number;
const sent: Record<string, number> = {};
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  alice = await makeUser(sys, "Alice", 400, "Alice");
  bob = await makeUser(sys, "Bob", 400, "Bob");
  carol = await makeUser(sys, "Carol", 400, "Carol");
  design = await createChannel(sys, alice, "design", [alice.userId, bob.userId], { is_default_stream: true });
  vault = await createChannel(sys, alice, "vault", [alice.userId], { invite_only: true });
  await createChannel(sys, alice, "archive", [bob.userId]);
  const send = async (key: string, user: TestUser, params: Record<string, unknown>) =>
    (sent[key] = ok(await sys.api(user).post("/messages", params)).id);
  await send("topic", alice, { type: "stream", to: "design", topic: "colors", content: "hello @**Bob**" });
  await send("empty", alice, { type: "stream", to: "design", topic: "", content: "general" });
  await send("dm", alice, { type: "private", to: JSON.stringify([bob.userId]), content: "psst" });
  await send("group", carol, { type: "private", to: JSON.stringify([alice.userId, bob.userId]), content: "all of us" });
  await send("vault", alice, { type: "stream", to: "vault", topic: "x", content: "secret" });
});
afterAll(() => sys?.stop());

const register = (user: TestUser, params: Record<string, unknown>) => sys.api(user).post("/register", params);

describe("POST /register: messaging's state", () => {
  it("subscriptions, unsubscribed and never_subscribed, with subscribers when asked", async () => {
    const body = ok(await register(bob, { fetch_event_types: ["subscription"], include_subscribers: true }));
    expect(body.subscriptions.map((s: { name: string }) => s.name)).toEqual(["archive", "design"]);
    expect(body.subscriptions[1]).toMatchObject({
      stream_id: design,
      subscribers: [alice.userId, bob.userId].sort((a, b) => a - b),
    });
    expect(body.unsubscribed).toEqual([]);
    // private channels Bob is not in stay hidden
    expect(body.never_subscribed).toEqual([]);
    const carolState = ok(await register(carol, { fetch_event_types: ["subscription"] }));
    expect(carolState.subscriptions).toEqual([]);
    expect(carolState.never_subscribed.map((s: { name: string }) => s.name)).toEqual(["archive", "design"]);
    expect(carolState.never_subscribed[0].subscribers).toBeUndefined();
    expect(body).not.toHaveProperty("max_message_id");
  });

  it("unread_msgs, max_message_id, starred_messages, recent_private_conversations", async () => {
    const body = ok(
      await register(bob, {
        fetch_event_types: ["message", "update_message_flags", "starred_messages", "recent_private_conversations"],
      }),
    );
    expect(body.max_message_id).toBe(sent.group);
    expect(body.starred_messages).toEqual([]);
    expect(body.unread_msgs).toEqual({
      pms: [{ other_user_id: alice.userId, sender_id: alice.userId, unread_message_ids: [sent.dm] }],
      streams: [
        { stream_id: design, topic: "colors", unread_message_ids: [sent.topic] },
        { stream_id: design, topic: "general chat", unread_message_ids: [sent.empty] },
      ],
      huddles: [
        {
          user_ids_string: [alice.userId, bob.userId, carol.userId].sort((a, b) => a - b).join(","),
          unread_message_ids: [sent.group],
        },
      ],
      mentions: [sent.topic],
      count: 4,
      old_unreads_missing: false,
    });
    expect(body.recent_private_conversations).toEqual([
      { max_message_id: sent.group, user_ids: [alice.userId, carol.userId].sort((a, b) => a - b) },
      { max_message_id: sent.dm, user_ids: [alice.userId] },
    ]);
    // the sender's own messages are read
    const aliceState = ok(await register(alice, { fetch_event_types: ["message", "update_message_flags"] }));
    expect(aliceState.unread_msgs.count).toBe(1);
    expect(aliceState.max_message_id).toBe(sent.vault);
    const withEmpty = ok(
      await register(bob, {
        fetch_event_types: ["message", "update_message_flags"],
        client_capabilities: { empty_topic_name: true },
      }),
    );
    expect(withEmpty.unread_msgs.streams[1].topic).toBe("");
  });

  it("streams, default streams, topics state", async () => {
    const body = ok(
      await register(bob, { fetch_event_types: ["stream", "default_streams", "muted_topics", "user_topic"] }),
    );
    expect(body.streams.map((s: { name: string }) => s.name)).toEqual(["archive", "design"]);
    expect(body.realm_default_streams).toEqual([design]);
    expect(body.muted_topics).toEqual([]);
    expect(body.user_topics).toEqual([]);
    expect(body).not.toHaveProperty("subscriptions");
  });
});

describe("conversation audience (POST /typing)", () => {
  it("channel typing needs access to the channel", async () => {
    ok(await sys.api(alice).post("/typing", { type: "stream", op: "start", stream_id: vault, topic: "x" }));
    const refused = await sys.api(bob).post("/typing", { type: "stream", op: "start", stream_id: vault, topic: "x" });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Invalid channel ID" });
    ok(await sys.api(bob).post("/typing", { type: "stream", op: "start", stream_id: design, topic: "x" }));
  });

  it("direct typing needs existing users; message typing needs access to the message", async () => {
    ok(await sys.api(alice).post("/typing", { op: "start", to: [bob.userId] }));
    const unknown = await sys.api(alice).post("/typing", { op: "start", to: [987654] });
    expect(unknown.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Invalid user ID 987654" });
    ok(await sys.api(bob).post(`/messages/${sent.dm}/typing`, { op: "start" }));
    const hidden = await sys.api(carol).post(`/messages/${sent.dm}/typing`, { op: "start" });
    expect(hidden.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Invalid message(s)" });
    const vaultMsg = await sys.api(bob).post(`/messages/${sent.vault}/typing`, { op: "start" });
    expect(vaultMsg.body.msg).toBe("Invalid message(s)");
    // a public channel's message: anyone who may read the channel's history
    ok(await sys.api(carol).post(`/messages/${sent.topic}/typing`, { op: "start" }));
  });
});
