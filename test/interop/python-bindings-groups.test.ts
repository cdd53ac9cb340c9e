/**
 * Zulip's Python bindings (PyPI `zulip`), unmodified, on user groups:
 * create_user_group, update_user_group_members and get_user_groups, with the
 * user_group events call_on_each_event hears. A private system, as in
 * python-bindings.test.ts.
 */
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser, bob: TestUser;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
  bob = await sys.makeUser("bob", 400, "Bob");
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);

it("create_user_group, update_user_group_members, get_user_groups", async () => {
  const created = await runBindings(owner, {
    calls: [["create_user_group", { name: "reviewers", description: "Code review", members: [alice.userId] }]],
    event_types: ["user_group"],
    expected_events: 1,
  });
  expect(created.replies[0]).toEqual({ result: "success", msg: "", group_id: expect.any(Number) });
  const groupId = created.replies[0]!.group_id as number;
  expect(created.events).toEqual([
    {
      type: "user_group",
      op: "add",
      group: expect.objectContaining({ id: groupId, name: "reviewers", members: [alice.userId] }),
    },
  ]);

  const { replies, events } = await runBindings(owner, {
    calls: [["update_user_group_members", groupId, { add: [bob.userId], delete: [alice.userId] }], ["get_user_groups"]],
    event_types: ["user_group"],
    expected_events: 2,
  });
  expect(replies[0]).toEqual({ result: "success", msg: "" });
  expect(events).toEqual([
    { type: "user_group", op: "add_members", group_id: groupId, user_ids: [bob.userId] },
    { type: "user_group", op: "remove_members", group_id: groupId, user_ids: [alice.userId] },
  ]);
  const groups = replies[1]!.user_groups as Json[];
  expect(groups.map((g) => g.name)).toEqual([
    "role:owners",
    "role:administrators",
    "role:moderators",
    "role:fullmembers",
    "role:members",
    "role:everyone",
    "role:internet",
    "role:nobody",
    "reviewers",
  ]);
  expect(groups.at(-1)).toMatchObject({ id: groupId, description: "Code review", members: [bob.userId] });
});
