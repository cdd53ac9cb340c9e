/**
 * Organization settings changed by PATCH /realm take effect in identity at
 * once (bot creation follows can_create_bots_group as the organization has it now).
 */
import { identity, realmConfig } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let member: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  member = await org.makeUser("member");
});
afterAll(() => org?.stop());

it("can_create_bots_group: a member creates bots until it names administrators", async () => {
  expect((await org.call(identity.createBot, { full_name: "Before Bot", short_name: "before" }, member)).result).toBe(
    "success",
  );
  await org.call(
    realmConfig.updateRealm,
    {
      can_create_bots_group: { new: 2 },
      can_create_write_only_bots_group: { new: 2 },
    },
    org.owner,
  );
  await expectZulipError(
    org.call(identity.createBot, { full_name: "After Bot", short_name: "after" }, member),
    badRequestError("Insufficient permission"),
  );
  expect((await org.call(identity.createBot, { full_name: "Admin Bot", short_name: "admin" }, org.owner)).result).toBe(
    "success",
  );
});

it("can_create_bots_group may name a user group, nested: its members create bots, others and those removed do not", async () => {
  const [inner, outsider] = [await org.makeUser("inner"), await org.makeUser("outsider")];
  const { group_id: innerGroup } = await org.call(
    identity.createUserGroup,
    { name: "bot makers", description: "", members: [inner.userId] },
    org.owner,
  );
  const { group_id: outerGroup } = await org.call(
    identity.createUserGroup,
    { name: "integrations", description: "", members: [], subgroups: [innerGroup] },
    org.owner,
  );
  await org.call(
    realmConfig.updateRealm,
    { can_create_bots_group: { new: outerGroup }, can_create_write_only_bots_group: { new: outerGroup } },
    org.owner,
  );
  expect((await org.call(identity.createBot, { full_name: "Inner Bot", short_name: "inner" }, inner)).result).toBe(
    "success",
  );
  const refused = badRequestError("Insufficient permission");
  await expectZulipError(org.call(identity.createBot, { full_name: "Out Bot", short_name: "out" }, outsider), refused);
  await org.call(identity.updateUserGroupMembers, { user_group_id: innerGroup, delete: [inner.userId] }, org.owner);
  await expectZulipError(org.call(identity.createBot, { full_name: "Late Bot", short_name: "late" }, inner), refused);
  // a group that does not exist is refused, and nothing changes
  await expectZulipError(
    org.call(realmConfig.updateRealm, { can_create_bots_group: { new: 999_999 } }, org.owner),
    badRequestError("Invalid user group"),
  );
});
