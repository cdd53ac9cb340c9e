import { Role, identity, messaging, type GroupSettingValue, type ParamsIn } from "@teamchat/shared";
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

describe("channel administration, subscriptions and deletion with user groups", () => {
  let editors: number;
  let desk: number;
  beforeAll(async () => {
    editors = await createGroup("copy editors", { members: [alice.userId] });
    desk = await createGroup("copy desk", { subgroups: [editors] });
  });
  const description = async (streamId: number) =>
    (await org.call(messaging.getStreamById, { stream_id: streamId }, org.owner)).stream.description;
  const subscribers = async (streamId: number) =>
    (await org.call(messaging.getSubscribers, { stream_id: streamId }, org.owner)).subscribers;

  it("PATCH /streams: can_administer_channel_group through a nested group, lost when the member is removed; unknown groups refused", async () => {
    const copy = await createChannel(org, org.owner, "copy", [org.owner.userId], {
      can_administer_channel_group: desk,
    });
    await org.call(messaging.updateStream, { stream_id: copy, description: "by alice" }, alice);
    expect(await description(copy)).toBe("by alice");
    const notAdmin = badRequestError("You do not have permission to administer this channel.");
    await expectZulipError(org.call(messaging.updateStream, { stream_id: copy, description: "by bob" }, bob), notAdmin);

    const unknownGroups: Array<[GroupSettingValue, string]> = [
      [999999, "Invalid user group"],
      [{ direct_members: [], direct_subgroups: [desk, 999999] }, "Invalid user group ID: 999999"],
    ];
    for (const [value, msg] of unknownGroups) {
      await expectZulipError(
        org.call(
          messaging.updateStream,
          { stream_id: copy, description: "unchanged?", can_send_message_group: { new: value } },
          org.owner,
        ),
        badRequestError(msg),
      );
    }
    expect(await description(copy)).toBe("by alice");
    // a group that exists is taken
    await org.call(messaging.updateStream, { stream_id: copy, can_send_message_group: { new: desk } }, org.owner);
    await send(alice, "copy");

    await org.call(identity.updateUserGroupMembers, { user_group_id: editors, delete: [alice.userId] }, org.owner);
    await expectZulipError(
      org.call(messaging.updateStream, { stream_id: copy, description: "again" }, alice),
      notAdmin,
    );
    await org.call(identity.updateUserGroupMembers, { user_group_id: editors, add: [alice.userId] }, org.owner);
  });

  it("subscriptions: can_add_subscribers_group and can_remove_subscribers_group through a nested group", async () => {
    const vault = await createChannel(org, org.owner, "copy-vault", [org.owner.userId], {
      invite_only: true,
      can_add_subscribers_group: desk,
    });
    // alice, in the group, may read the private channel and add others; bob may not even see it
    await org.call(messaging.subscribe, { subscriptions: [{ name: "copy-vault" }], principals: [carol.userId] }, alice);
    await expectZulipError(
      org.call(messaging.subscribe, { subscriptions: [{ name: "copy-vault" }], principals: [bob.userId] }, bob),
      badRequestError("Unable to access channel (copy-vault)."),
    );
    expect(await subscribers(vault)).toEqual([org.owner.userId, carol.userId]);

    const plaza = await createChannel(org, org.owner, "copy-plaza", [org.owner.userId, bob.userId, carol.userId], {
      can_remove_subscribers_group: { direct_members: [], direct_subgroups: [desk] },
    });
    await expectZulipError(
      org.call(messaging.unsubscribe, { subscriptions: ["copy-plaza"], principals: [carol.userId] }, bob),
      badRequestError("Insufficient permission"),
    );
    await org.call(messaging.unsubscribe, { subscriptions: ["copy-plaza"], principals: [carol.userId] }, alice);
    expect(await subscribers(plaza)).toEqual([org.owner.userId, bob.userId]);
  });

  it("DELETE /messages: a channel's can_delete_any_message_group through a nested group", async () => {
    await createChannel(org, org.owner, "copy-board", [org.owner.userId, alice.userId, bob.userId], {
      can_delete_any_message_group: desk,
    });
    const { id: first } = await send(org.owner, "copy-board", "first");
    const { id: second } = await send(org.owner, "copy-board", "second");
    await expectZulipError(
      org.call(messaging.deleteMessage, { message_id: first }, bob),
      badRequestError("You don't have permission to delete this message"),
    );
    await org.call(messaging.deleteMessage, { message_id: first }, alice);
    await expectZulipError(
      org.call(messaging.getMessage, { message_id: first }, org.owner),
      badRequestError("Invalid message(s)"),
    );
    await org.call(identity.updateUserGroupMembers, { user_group_id: desk, delete_subgroups: [editors] }, org.owner);
    await expectZulipError(
      org.call(messaging.deleteMessage, { message_id: second }, alice),
      badRequestError("You don't have permission to delete this message"),
    );
  });
});

it("a user group a channel's setting uses cannot be deactivated (CANNOT_DEACTIVATE_GROUP_IN_USE names the channel)", async () => {
  const posters = await createGroup("posters", { members: [alice.userId] });
  const channel = await createChannel(org, org.owner, "guarded", [org.owner.userId, alice.userId], {
    can_send_message_group: posters,
    can_delete_any_message_group: { direct_members: [bob.userId], direct_subgroups: [posters] },
  });
  const res = await org.api(org.owner).post(`/user_groups/${posters}/deactivate`, {});
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    result: "error",
    code: "CANNOT_DEACTIVATE_GROUP_IN_USE",
    msg: "Cannot deactivate user group in use.",
    objections: [
      { type: "channel", channel_id: channel, settings: ["can_delete_any_message_group", "can_send_message_group"] },
    ],
  });
  // nothing changed: the group still grants posting
  await send(alice, "guarded");
});
