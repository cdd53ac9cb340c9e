/**
 * realm-config's copy of identity's user groups (UserGroupCopy) on a real
 * nats-server and database, fed by published identity events: groups and
 * their members and subgroups as getUserGroupMemberships would answer them,
 * deactivated groups kept, identity's backfill of groups older than the copy,
 * and a restart in between.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import {
  EventPublisher,
  Role,
  identityEvents,
  type CallContext,
  type Connection,
  type PayloadOf,
} from "@teamchat/shared";
import { UserGroupCopy } from "../src/user-groups/user-group-copy";
import { DomainEventsWorld } from "../../../test/support/nats";

jest.setTimeout(60_000);

const log = pino({ level: "silent" });
const REALM = 3;
const ctx = { realm: { id: REALM }, actor: null, requestId: "test" } as unknown as CallContext;
const member = (userId: number) => ({ userId, role: Role.MEMBER });

const world = new DomainEventsWorld();
let nc: NatsConnection;
let db: Connection;
let identity: EventPublisher<"identity">;
let copy: UserGroupCopy | undefined;
beforeEach(async () => {
  await world.start();
  nc = world.nc;
  db = await world.database("groupcopy");
  identity = new EventPublisher(nc, "identity", true, log);
});
afterEach(async () => {
  await copy?.stop();
  copy = undefined;
  await world.stop();
});

type GroupEvent = PayloadOf<typeof identityEvents.userGroup>["event"];
const publish = (event: GroupEvent) =>
  identity.publishAndWait(identityEvents.userGroup, { realmId: REALM, userIds: "all", event });
const group = (id: number, members: number[], direct_subgroup_ids: number[] = []) => ({
  id,
  name: `g${id}`,
  description: "",
  members,
  direct_subgroup_ids,
  is_system_group: false,
  date_created: 0,
  creator_id: null,
  deactivated: false,
  can_add_members_group: 10,
  can_join_group: 10,
  can_leave_group: 10,
  can_manage_group: 10,
  can_mention_group: 10,
  can_remove_members_group: 10,
});

test("groups, members and subgroups follow identity's events; a deactivated group stays", async () => {
  copy = await UserGroupCopy.start(nc, db, log);
  await publish({ type: "user_group", op: "add", group: group(100, [1, 2]) });
  await publish({ type: "user_group", op: "add", group: group(101, [3], [100]) });
  await publish({ type: "user_group", op: "remove_members", group_id: 100, user_ids: [2] });
  await publish({ type: "user_group", op: "add_members", group_id: 100, user_ids: [4] });
  await publish({ type: "user_group", op: "remove", group_id: 101 });
  const groups = await copy.get(ctx);
  expect([groups.has(100, member(1)), groups.has(100, member(2)), groups.has(100, member(4))]).toEqual([
    true,
    false,
    true,
  ]);
  // through the subgroup
  expect(groups.has(101, member(4))).toBe(true);
  expect([groups.exists(101), groups.exists(102)]).toEqual([true, false]);

  await publish({ type: "user_group", op: "remove_subgroups", group_id: 101, direct_subgroup_ids: [100] });
  expect((await copy.get(ctx)).has(101, member(4))).toBe(false);
});

test("identity's backfill brings older groups; a later event wins; a restart keeps everything", async () => {
  copy = await UserGroupCopy.start(nc, db, log);
  await publish({ type: "user_group", op: "add", group: group(100, [1]) });
  await publish({ type: "user_group", op: "remove_members", group_id: 100, user_ids: [1] });
  await copy.stop();
  copy = undefined;

  // read by identity before the removal was published (asOf 1), stored after it
  await identity.publishAndWait(identityEvents.userGroupsBackfill, {
    realmId: REALM,
    asOf: 1,
    groups: [
      { id: 100, members: [1], direct_subgroup_ids: [] },
      { id: 90, members: [5], direct_subgroup_ids: [] },
    ],
  });
  copy = await UserGroupCopy.start(nc, db, log);
  const groups = await copy.get(ctx);
  expect([groups.has(100, member(1)), groups.has(90, member(5)), groups.exists(90)]).toEqual([false, true, true]);
});
