/**
 * The official JavaScript client, unmodified: multipart POST bodies with every
 * value a string, GET/PATCH/DELETE parameters in the query string,
 * `event_types=null` at register, password login through fetch_api_key.
 */
import zulipInit from "zulip-js";
import { realmConfig } from "@teamchat/shared";
import type { TestUser } from "../support/organization";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let alice: TestUser, bob: TestUser;
let za: zulipInit.ZulipClient, zb: zulipInit.ZulipClient;

beforeAll(async () => {
  sys = await startSystem({ env: { EVENT_HEARTBEAT_SECONDS: "1" } });
  [alice, bob] = [await sys.makeUser("alice"), await sys.makeUser("bob")];
  // alice logs in with her password (zulip-js calls POST /fetch_api_key), bob with his key
  za = await zulipInit({ username: alice.email, password: alice.password, realm: sys.baseUrl });
  zb = await zulipInit({ username: bob.email, apiKey: bob.apiKey, realm: sys.baseUrl });
});
afterAll(() => sys?.stop());

it("logs in with a password and reads its own profile and the server settings", async () => {
  expect(za.config.apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
  expect(await za.users.me.getProfile()).toMatchObject({
    result: "success",
    user_id: alice.userId,
    email: alice.email,
  });
  expect(await za.server.settings()).toMatchObject({ result: "success", zulip_feature_level: 417 });
});

it("subscribes, sends to a channel and reads it back with a narrow", async () => {
  const sub = await za.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: "interop" }]) });
  expect(sub).toMatchObject({ result: "success", subscribed: { [String(alice.userId)]: ["interop"] } });
  const subs = await za.streams.subscriptions.retrieve();
  expect(subs.subscriptions.map((s: { name: string }) => s.name)).toEqual(["interop"]);

  const sent = await za.messages.send({ to: "interop", type: "stream", topic: "zulip-js", content: "from *zulip-js*" });
  expect(sent).toMatchObject({ result: "success", id: expect.any(Number) });
  const read = await za.messages.retrieve({
    anchor: "newest",
    num_before: 10,
    num_after: 0,
    narrow: [
      { operator: "stream", operand: "interop" },
      { operator: "topic", operand: "zulip-js" },
    ],
  });
  expect(read.result).toBe("success");
  expect(read.messages.map((m: { id: number; content: string }) => [m.id, m.content])).toEqual([
    [sent.id, "<p>from <em>zulip-js</em></p>"],
  ]);
});

it("registers with event_types=null, receives a direct message and typing, deregisters", async () => {
  const reg = await zb.queues.register({ event_types: null });
  expect(reg).toMatchObject({ result: "success", queue_id: expect.any(String), last_event_id: -1 });

  const dm = await za.messages.send({ to: [bob.userId], type: "private", content: "hi bob" });
  expect(dm.result).toBe("success");
  await za.typing.send({ to: [bob.userId], op: "start" });

  const seen: Array<Record<string, unknown>> = [];
  let last = reg.last_event_id as number;
  for (let i = 0; i < 20 && !(seen.some((e) => e.type === "message") && seen.some((e) => e.type === "typing")); i++) {
    const got = await zb.events.retrieve({ queue_id: reg.queue_id, last_event_id: last });
    expect(got.result).toBe("success");
    for (const e of got.events as Array<Record<string, unknown> & { id: number }>) {
      last = Math.max(last, e.id);
      seen.push(e);
    }
  }
  const message = seen.find((e) => e.type === "message")!;
  expect(Object.keys(message).sort()).toEqual(["flags", "id", "message", "type"]);
  // register's apply_markdown defaults to false: the text as typed
  expect(message.message).toMatchObject({
    id: dm.id,
    content: "hi bob",
    content_type: "text/x-markdown",
    sender_id: alice.userId,
  });
  expect(seen.find((e) => e.type === "typing")).toMatchObject({ op: "start", sender: { user_id: alice.userId } });

  expect(await zb.queues.deregister({ queue_id: reg.queue_id })).toMatchObject({ result: "success" });
  const gone = await zb.events.retrieve({ queue_id: reg.queue_id, last_event_id: last });
  expect(gone).toEqual({
    result: "error",
    code: "BAD_EVENT_QUEUE_ID",
    msg: `Bad event queue ID: ${reg.queue_id}`,
    queue_id: reg.queue_id,
  });
});

it("filters.retrieve lists the organization's linkifiers as [pattern, url_template, id]", async () => {
  const linkifier = { pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" };
  const { id } = await sys.call(realmConfig.createLinkifier, linkifier, sys.owner);
  expect(await zb.filters.retrieve()).toEqual({
    result: "success",
    msg: "",
    filters: [[linkifier.pattern, linkifier.url_template, id]],
  });
});
