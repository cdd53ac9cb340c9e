import { Role, identity, messaging, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

/** Channel permissions given to user groups (identity's), evaluated by messaging through nested subgroups. */
let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("alice", Role.MEMBER);
  bob = await org.makeUser("bob", Role.MEMBER);
  carol = await org.makeUser("carol", Role.MEMBER);
});
afterAll(() => org?.stop());

const send = (user: Credentials, to: string, content = "hello") =>
  org.call(messaging.sendMessage, { type: "stream", to, topic: "news", content }, user);
const createGroup = async (name: string, params: Partial<ParamsIn<typeof identity.createUserGroup>> = {}) =>
  (await org.call(identity.createUserGroup, { name, description: "", members: [], ...params }, org.owner)).group_id;
const noPermission = badRequestError("You do not have permission to post in this channel.");

describe("group-setting values naming user groups", () => {
  it("grant can_send_message_group through a nested subgroup, and lose it when the member is removed", async () => {
    const editors = await createGroup("editors", { members: [alice.userId] });
    const newsroom = await createGroup("newsroom", { members: [carol.userId], subgroups: [editors] });
    await createChannel(org, org.owner, "announcements", [org.owner.userId, alice.userId, bob.userId, carol.userId], {
      can_send_message_group: newsroom,
    });
    await send(alice, "announcements");
    await send(carol, "announcements");
    await expectZulipError(send(bob, "announcements"), noPermission);

    await org.call(identity.updateUserGroupMembers, { user_group_id: editors, delete: [alice.userId] }, org.owner);
    await expectZulipError(send(alice, "announcements"), noPermission);
    await org.call(identity.updateUserGroupMembers, { user_group_id: newsroom, add: [bob.userId] }, org.owner);
    await send(bob, "announcements");
    // an anonymous value's subgroup counts as well
    await createChannel(org, org.owner, "desk", [org.owner.userId, alice.userId], {
      can_send_message_group: { direct_members: [], direct_subgroups: [newsroom, editors] },
    });
    await send(carol, "desk");
    await expectZulipError(send(alice, "desk"), noPermission);
  });

  it("refuses channel settings naming groups that do not exist", async () => {
    await expectZulipError(
      org.call(
        messaging.createChannel,
        { name: "nowhere", subscribers: [], can_send_message_group: 999999 },
        org.owner,
      ),
      badRequestError("Invalid user group"),
    );
    await expectZulipError(
      org.call(
        messaging.createChannel,
        {
          name: "nowhere",
          subscribers: [],
          can_send_message_group: { direct_members: [], direct_subgroups: [999999] },
        },
        org.owner,
      ),
      badRequestError("Invalid user group ID: 999999"),
    );
  });
});
