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
