/**
 * GET /users/{user_id}/channels (Zulip's get_user_channels, FL 440 and 458):
 * another user's or bot's subscriptions, as far as the caller may see each
 * channel's subscribers.
 */
import { identity, messaging } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser, admin: TestUser;
let hall: number, secret: number, shared: number, archived: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  admin = await org.makeUser("Admin", 200, "Admin");
  hall = await createChannel(org, bob, "hall", [bob.userId, guest.userId]);
  secret = await createChannel(org, bob, "secret", [bob.userId], { invite_only: true });
  shared = await createChannel(org, bob, "shared", [bob.userId, alice.userId], { invite_only: true });
  archived = await createChannel(org, bob, "old", [bob.userId]);
  await org.call(messaging.archiveStream, { stream_id: archived }, org.owner);
});
afterAll(() => org?.stop());

const channelsOf = async (user_id: number, asker: Credentials) => {
  const body = await org.call(messaging.getUserChannels, { user_id }, asker);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["msg", "result", "subscribed_channel_ids"]);
  return body.subscribed_channel_ids;
};

describe("GET /users/{user_id}/channels", () => {
  it("lists the channels whose subscribers the caller may see, ascending; archived ones left out", async () => {
    expect(await channelsOf(bob.userId, alice)).toEqual([hall, shared]);
    // administrators see private channels' subscribers
    expect(await channelsOf(bob.userId, admin)).toEqual([hall, secret, shared]);
    expect(await channelsOf(bob.userId, bob)).toEqual([hall, secret, shared]);
    // a guest sees only what they are subscribed to
    expect(await channelsOf(bob.userId, guest)).toEqual([hall]);
    expect(await channelsOf(carol.userId, alice)).toEqual([]);
  });

  it("answers for a bot; refuses an unknown or deactivated user", async () => {
    const bot = await org.call(identity.createBot, { full_name: "Helper", short_name: "helper" }, alice);
    await org.call(messaging.subscribe, { subscriptions: [{ name: "hall" }], principals: [bot.user_id] }, alice);
    expect(await channelsOf(bot.user_id, alice)).toEqual([hall]);
    await expectZulipError(
      org.call(messaging.getUserChannels, { user_id: 99_999_999 }, alice),
      badRequestError("No such user"),
    );
    const gone = await org.makeUser("Gone", 400, "Gone");
    await org.call(identity.deactivateUser, { user_id: gone.userId }, org.owner);
    await expectZulipError(
      org.call(messaging.getUserChannels, { user_id: gone.userId }, alice),
      badRequestError("No such user"),
    );
  });
});
