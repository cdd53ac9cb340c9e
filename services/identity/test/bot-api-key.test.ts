/**
 * GET /bots/{bot_id}/api_key (Zulip's get_bot_api_key, FL 463): the bot's
 * current key, to those who administer the bot; others refused as by the
 * other bot operations.
 */
import { identity } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, member: TestUser, other: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", 200);
  member = await org.makeUser("member");
  other = await org.makeUser("other");
  guest = await org.makeUser("guest", 600);
});
afterAll(() => org?.stop());

const keyOf = async (bot_id: number, asker: TestUser) => {
  const body = await org.call(identity.getBotApiKey, { bot_id }, asker);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["api_key", "msg", "result"]);
  return body.api_key;
};

describe("GET /bots/{bot_id}/api_key", () => {
  it("gives the owner and administrators the bot's working key, the new one after a regeneration", async () => {
    const bot = await org.call(identity.createBot, { full_name: "Key Bot", short_name: "keybot" }, member);
    expect(await keyOf(bot.user_id, member)).toBe(bot.api_key);
    expect(await keyOf(bot.user_id, admin)).toBe(bot.api_key);
    const { api_key } = await org.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, member);
    expect(await keyOf(bot.user_id, member)).toBe(api_key);
    const email = `keybot-bot@${org.realm.host.split(":")[0]}`;
    ok(await org.api({ email, apiKey: await keyOf(bot.user_id, admin) }).get("/users/me"));
  });

  it("refuses others, guests and ids that are not bots", async () => {
    const bot = await org.call(identity.createBot, { full_name: "Other Bot", short_name: "otherbot" }, member);
    await expectZulipError(
      org.call(identity.getBotApiKey, { bot_id: bot.user_id }, other),
      bad("Insufficient permission"),
    );
    await expectZulipError(
      org.call(identity.getBotApiKey, { bot_id: bot.user_id }, guest),
      bad("Not allowed for guest users"),
    );
    await expectZulipError(org.call(identity.getBotApiKey, { bot_id: member.userId }, admin), bad("No such bot"));
    await expectZulipError(org.call(identity.getBotApiKey, { bot_id: 99_999_999 }, admin), bad("No such bot"));
  });
});
