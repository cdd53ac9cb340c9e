/**
 * How the Python bindings and the terminal client (zulip-term) call the API,
 * and what they need back to start.
 */
import { ok } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../support/organization";

let sys: TestOrganization;
let alice: TestUser, bob: TestUser;

beforeAll(async () => {
  sys = await testOrganization();
  [alice, bob] = [await sys.makeUser("alice"), await sys.makeUser("bob")];
  ok(await sys.api(alice).post("/channels/create", { name: "python", subscribers: [alice.userId, bob.userId] }));
});
afterAll(() => sys?.stop());

it("POST /messages: `to` as a channel name, `subject` for the topic, every type spelling", async () => {
  const ids: number[] = [];
  for (const type of ["stream", "channel"]) {
    ids.push(
      ok(await sys.api(alice).post("/messages", { type, to: "python", subject: `via ${type}`, content: "x" })).id,
    );
  }
  for (const type of ["private", "direct"]) {
    ids.push(ok(await sys.api(alice).post("/messages", { type, to: JSON.stringify([bob.userId]), content: "y" })).id);
  }
  const got = ok(await sys.api(bob).get("/messages", { message_ids: ids })).messages as Array<Record<string, unknown>>;
  expect(got.map((m) => [m.id, m.type, m.subject])).toEqual([
    [ids[0], "stream", "via stream"],
    [ids[1], "stream", "via channel"],
    [ids[2], "private", ""],
    [ids[3], "private", ""],
  ]);
});

it("GET /messages: use_first_unread_anchor with the legacy narrow form; the reply carries anchor", async () => {
  const first = ok(
    await sys.api(alice).post("/messages", { type: "stream", to: "python", topic: "legacy", content: "a" }),
  ).id;
  ok(await sys.api(alice).post("/messages", { type: "stream", to: "python", topic: "legacy", content: "b" }));
  const body = ok(
    await sys.api(bob).get("/messages", {
      use_first_unread_anchor: true,
      num_before: 0,
      num_after: 10,
      narrow: [
        ["stream", "python"],
        ["topic", "legacy"],
      ],
    }),
  );
  expect(body.anchor).toBe(first);
  expect(body.found_anchor).toBe(true);
  expect((body.messages as Array<{ content: string }>).map((m) => m.content)).toEqual(["<p>a</p>", "<p>b</p>"]);
});

it("POST /register without fetch_event_types has every key the terminal client starts with", async () => {
  const reg = ok(await sys.api(bob).post("/register", { include_subscribers: true }));
  for (const key of [
    "queue_id",
    "last_event_id",
    "max_message_id",
    "zulip_version",
    "zulip_feature_level",
    "user_id",
    "email",
    "full_name",
    "realm_name",
    "realm_users",
    "cross_realm_bots",
    "presences",
    "subscriptions",
    "realm_message_retention_days",
    "muted_topics",
    "realm_user_groups",
    "unread_msgs",
    "realm_emoji",
    "starred_messages",
    "twenty_four_hour_time",
    "pm_content_in_desktop_notifications",
  ]) {
    expect(reg).toHaveProperty(key);
  }
  expect(reg).toMatchObject({
    user_id: bob.userId,
    email: bob.email,
    zulip_feature_level: 417,
    realm_name: "Test Organization",
  });
  expect((reg.realm_users as Array<{ user_id: number }>).map((u) => u.user_id)).toContain(bob.userId);
  const python = (reg.subscriptions as Array<{ name: string; color: string; subscribers: number[] }>).find(
    (s) => s.name === "python",
  )!;
  expect(python.color).toMatch(/^#[0-9a-f]{6}$/);
  expect(python.subscribers.sort()).toEqual([alice.userId, bob.userId].sort());
  expect(reg.max_message_id).toBeGreaterThan(0);
});

it("an unknown queue answers BAD_EVENT_QUEUE_ID with the queue id", async () => {
  const res = await sys.api(bob).get("/events", { queue_id: "no-such-queue", last_event_id: -1 });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: "error",
    code: "BAD_EVENT_QUEUE_ID",
    msg: "Bad event queue ID: no-such-queue",
    queue_id: "no-such-queue",
  });
});
