import { Role, SYSTEM_GROUPS, identity, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { ok } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser;
let moderator: TestUser;
let member: TestUser;
let other: TestUser;
let guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", Role.ADMINISTRATOR);
  moderator = await org.makeUser("moderator", Role.MODERATOR);
  member = await org.makeUser("member", Role.MEMBER);
  other = await org.makeUser("other", Role.MEMBER);
  guest = await org.makeUser("guest", Role.GUEST);
});
afterAll(() => org?.stop());

const NOBODY = SYSTEM_GROUPS["role:nobody"];
const EVERYONE = SYSTEM_GROUPS["role:everyone"];

type CreateParams = ParamsIn<typeof identity.createUserGroup>;
let groupCount = 0;
const create = async (params: Partial<CreateParams> = {}, user: Credentials = org.owner) =>
  (
    await org.call(
      identity.createUserGroup,
      { name: `group ${++groupCount}`, description: "", members: [], ...params },
      user,
    )
  ).group_id;
const groups = async (include_deactivated_groups = false, user: Credentials = org.owner) =>
  (await org.call(identity.getUserGroups, { include_deactivated_groups }, user)).user_groups;
const groupById = async (id: number) => (await groups(true)).find((g) => g.id === id)!;
const members = (
  user_group_id: number,
  params: Omit<ParamsIn<typeof identity.updateUserGroupMembers>, "user_group_id">,
  user: Credentials = org.owner,
) => org.call(identity.updateUserGroupMembers, { user_group_id, ...params }, user);
const memberIds = async (user_group_id: number, direct_member_only = false) =>
  (await org.call(identity.getUserGroupMembers, { user_group_id, direct_member_only }, org.owner)).members;

describe("system groups", () => {
  it("are listed first with Zulip's names, descriptions, members by role and nested subgroups", async () => {
    const list = await groups();
    const system = list.filter((g) => g.is_system_group);
    expect(system.map((g) => [g.id, g.name])).toEqual([
      [1, "role:owners"],
      [2, "role:administrators"],
      [3, "role:moderators"],
      [4, "role:fullmembers"],
      [5, "role:members"],
      [6, "role:everyone"],
      [7, "role:internet"],
      [8, "role:nobody"],
    ]);
    expect(system[1]).toEqual({
      id: 2,
      name: "role:administrators",
      description: "Administrators of this organization, including owners",
      members: [admin.userId],
      direct_subgroup_ids: [1],
      creator_id: null,
      date_created: null,
      is_system_group: true,
      can_add_members_group: NOBODY,
      can_join_group: NOBODY,
      can_leave_group: NOBODY,
      can_manage_group: NOBODY,
      can_mention_group: NOBODY,
      can_remove_members_group: NOBODY,
      deactivated: false,
    });
    expect(await memberIds(SYSTEM_GROUPS["role:moderators"])).toEqual([
      org.owner.userId,
      admin.userId,
      moderator.userId,
    ]);
    expect(await memberIds(SYSTEM_GROUPS["role:moderators"], true)).toEqual([moderator.userId]);
    expect(await memberIds(EVERYONE, true)).toEqual([guest.userId]);
    const subgroups = await org.call(identity.getUserGroupSubgroups, { user_group_id: 5 }, org.owner);
    expect(subgroups.subgroups).toEqual([1, 2, 3, 4]);
  });

  it("cannot be changed", async () => {
    await expectZulipError(members(EVERYONE, { add: [member.userId] }), badRequestError("Insufficient permission"));
    await expectZulipError(
      org.call(identity.updateUserGroup, { user_group_id: 2, name: "admins" }, org.owner),
      badRequestError("Insufficient permission"),
    );
  });
});

describe("POST /user_groups/create", () => {
  it("creates a group with Zulip's defaults; everyone hears a user_group add event", async () => {
    const reader = await EventReader.register(org.api(other), { event_types: ["user_group"] });
    const before = Math.floor(Date.now() / 1000);
    const reply = await org.call(
      identity.createUserGroup,
      { name: "backend", description: "Backend team", members: [member.userId, other.userId] },
      admin,
    );
    expect(Object.keys(reply).sort()).toEqual(["group_id", "msg", "result"]);
    const group = await groupById(reply.group_id);
    expect(group).toEqual({
      id: reply.group_id,
      name: "backend",
      description: "Backend team",
      members: [member.userId, other.userId],
      direct_subgroup_ids: [],
      creator_id: admin.userId,
      date_created: expect.any(Number),
      is_system_group: false,
      can_add_members_group: { direct_members: [admin.userId], direct_subgroups: [] },
      can_join_group: NOBODY,
      can_leave_group: EVERYONE,
      can_manage_group: { direct_members: [admin.userId], direct_subgroups: [] },
      can_mention_group: EVERYONE,
      can_remove_members_group: NOBODY,
      deactivated: false,
    });
    expect(group.id).toBeGreaterThan(8);
    expect(group.date_created).toBeGreaterThanOrEqual(before);
    const [event] = await reader.until((e) => e.length >= 1);
    expect(event).toEqual({ id: expect.any(Number), type: "user_group", op: "add", group });
  });

  it("takes subgroups and settings", async () => {
    const sub = await create();
    const id = await create({
      subgroups: [sub],
      can_join_group: SYSTEM_GROUPS["role:members"],
      can_mention_group: { direct_members: [], direct_subgroups: [sub] },
    });
    const group = await groupById(id);
    expect(group.direct_subgroup_ids).toEqual([sub]);
    expect(group.can_join_group).toBe(5);
    // an anonymous group of one subgroup is that group
    expect(group.can_mention_group).toBe(sub);
  });

  it("refuses bad names, members, subgroups and settings, creating nothing", async () => {
    const count = (await groups(true)).length;
    const expectError = (params: Partial<CreateParams>, msg: string) =>
      expectZulipError(create(params), badRequestError(msg));
    await expectError({ name: " " }, "User group name can't be empty!");
    await expectError({ name: "x".repeat(101) }, "User group name cannot exceed 100 characters.");
    await expectError({ name: "role:x" }, "User group name cannot start with 'role:'.");
    await expectError({ name: "@x" }, "User group name cannot start with '@'.");
    await expectError({ name: "backend" }, "User group 'backend' already exists.");
    await expectError({ members: [999999] }, "Invalid user ID: 999999");
    await expectError({ subgroups: [999999] }, "Invalid user group ID: 999999");
    await expectError({ can_manage_group: 999999 }, "Invalid user group");
    await expectError(
      { can_manage_group: EVERYONE },
      "'can_manage_group' setting cannot be set to 'role:everyone' group.",
    );
    await expectError({ can_mention_group: 7 }, "'can_mention_group' setting cannot be set to 'role:internet' group.");
    await expectError(
      { can_manage_group: { direct_members: [999999], direct_subgroups: [] } },
      "Invalid user ID: 999999",
    );
    expect((await groups(true)).length).toBe(count);
  });

  it("is for the organization's can_create_groups (members by default), never guests", async () => {
    await expect(create({}, member)).resolves.toEqual(expect.any(Number));
    await expectZulipError(create({}, guest), badRequestError("Not allowed for guest users"));
    await expectZulipError(org.call(identity.getUserGroups, {}, guest), badRequestError("Not allowed for guest users"));
  });
});

describe("POST /user_groups/{id}/members", () => {
  it("adds and removes members and subgroups, with one event each", async () => {
    const id = await create({ members: [member.userId] });
    const sub = await create({ members: [guest.userId] });
    const reader = await EventReader.register(org.api(member), { event_types: ["user_group"] });
    await members(id, { add: [other.userId], delete: [member.userId], add_subgroups: [sub] });
    expect(await memberIds(id, true)).toEqual([other.userId]);
    expect(await memberIds(id)).toEqual([other.userId, guest.userId]);
    expect(
      (await org.call(identity.getIsUserGroupMember, { user_group_id: id, user_id: guest.userId }, org.owner))
        .is_user_group_member,
    ).toBe(true);
    expect(
      (
        await org.call(
          identity.getIsUserGroupMember,
          { user_group_id: id, user_id: guest.userId, direct_member_only: true },
          org.owner,
        )
      ).is_user_group_member,
    ).toBe(false);
    const events = await reader.until((e) => e.length >= 3);
    expect(events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: "user_group", op: "add_members", group_id: id, user_ids: [other.userId] },
      { type: "user_group", op: "remove_members", group_id: id, user_ids: [member.userId] },
      { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [sub] },
    ]);
    await members(id, { delete_subgroups: [sub] });
    expect(await memberIds(id)).toEqual([other.userId]);
  });

  it("refuses each bad request, changing nothing", async () => {
    const id = await create({ members: [member.userId] });
    const child = await create();
    await members(id, { add_subgroups: [child] });
    const expectError = (params: Parameters<typeof members>[1], msg: string, groupId = id) =>
      expectZulipError(members(groupId, params), badRequestError(msg));
    await expectError(
      {},
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
    await expectError({ add: [member.userId] }, `User ${member.userId} is already a member of this group`);
    await expectError({ add: [999999] }, "Invalid user ID: 999999");
    await expectError({ delete: [other.userId] }, `There is no member '${other.userId}' in this user group`);
    await expectError(
      { add: [other.userId], delete: [admin.userId] },
      `There is no member '${admin.userId}' in this user group`,
    );
    await expectError({ add_subgroups: [child] }, `User group ${child} is already a subgroup of this group.`);
    await expectError(
      { add_subgroups: [id] },
      `User group ${id} is already a subgroup of one of the passed subgroups.`,
    );
    await expectError(
      { add_subgroups: [id] },
      `User group ${child} is already a subgroup of one of the passed subgroups.`,
      child,
    );
    await expectError({ delete_subgroups: [5] }, "User group 5 is not a subgroup of this group.");
    await expectError({ add_subgroups: [999999] }, "Invalid user group ID: 999999");
    await expectError({ add: [other.userId] }, "Invalid user group", 999999);
    expect(await memberIds(id, true)).toEqual([member.userId]);
    expect((await groupById(id)).direct_subgroup_ids).toEqual([child]);
  });

  it("follows the group's permissions: manage, add, remove, join and leave", async () => {
    const id = await create({ members: [member.userId] });
    // the creator alone manages by default; the owner through can_manage_all_groups (owners by default)
    await expectZulipError(members(id, { add: [other.userId] }, admin), badRequestError("Insufficient permission"));
    await expectZulipError(members(id, { add: [other.userId] }, moderator), badRequestError("Insufficient permission"));
    await expectZulipError(members(id, { add: [other.userId] }, other), badRequestError("Insufficient permission"));
    await expectZulipError(members(id, { add: [guest.userId] }, guest), badRequestError("Not allowed for guest users"));
    // can_leave_group is everyone by default: one may leave, not remove others
    await expectZulipError(members(id, { delete: [member.userId] }, other), badRequestError("Insufficient permission"));
    await members(id, { delete: [member.userId] }, member);
    // can_join_group is nobody by default
    await expectZulipError(members(id, { add: [other.userId] }, other), badRequestError("Insufficient permission"));
    await org.call(identity.updateUserGroup, { user_group_id: id, can_join_group: { new: 5 } }, org.owner);
    await members(id, { add: [other.userId] }, other);
    // can_add_members_group granted through a nested group
    const helpers = await create({ members: [moderator.userId] });
    await org.call(
      identity.updateUserGroup,
      { user_group_id: id, can_add_members_group: { new: { direct_members: [], direct_subgroups: [helpers] } } },
      org.owner,
    );
    await members(id, { add: [member.userId] }, moderator);
    await expectZulipError(
      members(id, { delete: [member.userId] }, moderator),
      badRequestError("Insufficient permission"),
    );
    await members(helpers, { delete: [moderator.userId] });
    await expectZulipError(members(id, { add: [admin.userId] }, moderator), badRequestError("Insufficient permission"));
    expect(await memberIds(id, true)).toEqual([member.userId, other.userId]);
  });
});

describe("PATCH /user_groups/{id} and deactivation", () => {
  it("renames, describes and changes settings, with update events; checks `old`", async () => {
    const id = await create({}, member);
    const reader = await EventReader.register(org.api(other), { event_types: ["user_group"] });
    await org.call(
      identity.updateUserGroup,
      { user_group_id: id, name: "renamed", description: "new", can_mention_group: { new: 3, old: EVERYONE } },
      member,
    );
    const group = await groupById(id);
    expect([group.name, group.description, group.can_mention_group]).toEqual(["renamed", "new", 3]);
    const events = await reader.until((e) => e.length >= 3);
    expect(events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: "user_group", op: "update", group_id: id, data: { name: "renamed" } },
      { type: "user_group", op: "update", group_id: id, data: { description: "new" } },
      { type: "user_group", op: "update", group_id: id, data: { can_mention_group: 3 } },
    ]);
    await expectZulipError(
      org.call(identity.updateUserGroup, { user_group_id: id, can_mention_group: { new: 2, old: EVERYONE } }, member),
      badRequestError("'old' value does not match the expected value.", "EXPECTATION_MISMATCH"),
    );
    await expectZulipError(
      org.call(identity.updateUserGroup, { user_group_id: id }, member),
      badRequestError("No new data supplied"),
    );
    await expectZulipError(
      org.call(identity.updateUserGroup, { user_group_id: id, name: "backend" }, member),
      badRequestError("User group 'backend' already exists."),
    );
    await expectZulipError(
      org.call(identity.updateUserGroup, { user_group_id: id, name: "x" }, other),
      badRequestError("Insufficient permission"),
    );
    expect((await groupById(id)).name).toBe("renamed");
  });

  it("deactivates a group not in use, hides it, keeps its members changeable (FL 391) and reactivates it", async () => {
    const id = await create({ members: [member.userId] });
    const user = await create({ subgroups: [id], can_manage_group: id });
    await expectZulipError(org.call(identity.deactivateUserGroup, { user_group_id: id }, org.owner), {
      status: 400,
      code: "CANNOT_DEACTIVATE_GROUP_IN_USE",
      msg: "Cannot deactivate user group in use.",
      objections: [
        { type: "subgroup", supergroup_ids: [user] },
        { type: "user_group", group_id: user, settings: ["can_manage_group"] },
      ],
    });
    await members(user, { delete_subgroups: [id] });
    await org.call(identity.updateUserGroup, { user_group_id: user, can_manage_group: { new: NOBODY } }, org.owner);

    const legacy = await EventReader.register(org.api(other), { event_types: ["user_group"] });
    const modern = await EventReader.register(org.api(other), {
      event_types: ["user_group"],
      client_capabilities: { include_deactivated_groups: true },
    });
    await org.call(identity.deactivateUserGroup, { user_group_id: id }, org.owner);
    expect((await groups()).some((g) => g.id === id)).toBe(false);
    expect((await groupById(id)).deactivated).toBe(true);
    await expectZulipError(
      org.call(identity.deactivateUserGroup, { user_group_id: id }, org.owner),
      badRequestError("User group is deactivated."),
    );
    await expectZulipError(memberIds(id), badRequestError("User group is deactivated."));
    await members(id, { add: [other.userId] });
    await org.call(identity.updateUserGroup, { user_group_id: id, deactivated: false }, org.owner);
    expect((await groupById(id)).deactivated).toBe(false);
    expect(await memberIds(id)).toEqual([member.userId, other.userId]);

    const strip = (e: Record<string, unknown>) => ({ ...e, id: undefined });
    const legacyEvents = await legacy.until((e) => e.length >= 3);
    expect(legacyEvents.map(strip)).toEqual([
      { id: undefined, type: "user_group", op: "remove", group_id: id },
      { id: undefined, type: "user_group", op: "add_members", group_id: id, user_ids: [other.userId] },
      { id: undefined, type: "user_group", op: "add", group: await groupById(id) },
    ]);
    const modernEvents = await modern.until((e) => e.length >= 3);
    expect(modernEvents.map(strip)).toEqual([
      { id: undefined, type: "user_group", op: "update", group_id: id, data: { deactivated: true } },
      { id: undefined, type: "user_group", op: "add_members", group_id: id, user_ids: [other.userId] },
      { id: undefined, type: "user_group", op: "update", group_id: id, data: { deactivated: false } },
    ]);
  });
});

describe("POST /register", () => {
  it("lists the groups in realm_user_groups, deactivated ones only with include_deactivated_groups", async () => {
    const id = await create();
    await org.call(identity.deactivateUserGroup, { user_group_id: id }, org.owner);
    const legacy = ok(await org.api(member).post("/register", { fetch_event_types: ["realm_user_groups"] }));
    expect(legacy.realm_user_groups).toEqual(await groups(false));
    const modern = ok(
      await org.api(member).post("/register", {
        fetch_event_types: ["realm_user_groups"],
        client_capabilities: { include_deactivated_groups: true },
      }),
    );
    expect(modern.realm_user_groups).toEqual(await groups(true));
  });
});
