/**
 * Gateways trust checked credentials for AUTH_CACHE_SECONDS (here 300): a
 * deactivation or a new key must reach every gateway's cache at once, or the
 * old credentials would keep working through the gateway that did not handle
 * the change. Two gateways on one bus: the change goes through one, the old
 * credentials are refused by the other.
 */
import { identity } from "@teamchat/shared";
import { ApiClient, ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../../../test/support/call";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
let second: (user: Credentials) => ApiClient;
beforeAll(async () => {
  sys = await startSystem({ env: { AUTH_CACHE_SECONDS: "300" } });
  const url = await sys.startGateway();
  second = (user) => new ApiClient(url, user);
});
afterAll(() => sys?.stop());

it("a user deactivated through one gateway is refused at once by the other, which had their key cached", async () => {
  const user = await sys.makeUser("Leaving");
  ok(await second(user).get("/users/me"));
  await sys.call(identity.deactivateUser, { user_id: user.userId }, sys.owner);
  await expectZulipError(second(user).get("/users/me"), {
    status: 401,
    code: "USER_DEACTIVATED",
    msg: "Account is deactivated",
  });
});

it("a regenerated key: the old one is refused at once by the other gateway", async () => {
  const user = await sys.makeUser("Rekey");
  ok(await second(user).get("/users/me"));
  const { api_key } = await sys.call(identity.regenerateApiKey, {}, user);
  await expectZulipError(second(user).get("/users/me"), {
    status: 401,
    code: "INVALID_API_KEY",
    msg: "Invalid API key",
  });
  ok(await second({ email: user.email, apiKey: api_key }).get("/users/me"));
});

it("a bot's regenerated key and its deactivation reach the other gateway at once", async () => {
  const owner = await sys.makeUser("BotOwner");
  const bot = await sys.call(identity.createBot, { full_name: "Gateway Bot", short_name: "gw" }, owner);
  const { bots } = await sys.call(identity.getBots, {}, owner);
  const creds = { email: bots[0]!.username, apiKey: bot.api_key };
  ok(await second(creds).get("/users/me"));
  const { api_key } = await sys.call(identity.regenerateBotApiKey, { bot_id: bot.user_id }, owner);
  await expectZulipError(second(creds).get("/users/me"), {
    status: 401,
    code: "INVALID_API_KEY",
    msg: "Invalid API key",
  });
  ok(await second({ ...creds, apiKey: api_key }).get("/users/me"));
  await sys.call(identity.deactivateOwnUser, {}, owner);
  await expectZulipError(second({ ...creds, apiKey: api_key }).get("/users/me"), {
    status: 401,
    code: "USER_DEACTIVATED",
    msg: "Account is deactivated",
  });
});
