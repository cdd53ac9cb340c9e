/**
 * A route's follow-up (HttpBinding.followUp): after identity creates a person,
 * the gateway has messaging set them up (default channels) before answering,
 * and clients never see the reply's follow_up. When messaging cannot be
 * reached, the creation still stands, as when identity asked messaging itself:
 * the failure is logged.
 */
import { identity, messaging } from "@teamchat/shared";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
const logs: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  sys = await startSystem({ logs, env: { LOG_LEVEL: "error" } });
});
afterAll(() => sys?.stop());

it("the new user is subscribed to the default channels when POST /users answers", async () => {
  const { id } = await sys.call(messaging.createChannel, { name: "lobby", subscribers: [sys.owner.userId] }, sys.owner);
  await sys.call(messaging.addDefaultStream, { stream_id: id }, sys.owner);
  const dana = await sys.makeUser("Dana");
  const subscribed = (await sys.call(messaging.getSubscriptions, {}, dana)).subscriptions.map((s) => s.stream_id);
  expect(subscribed).toContain(id);
});

it("without messaging the person is still created, and the failed set-up is logged", async () => {
  await sys.stopService("messaging");
  const body = await sys.call(
    identity.createUser,
    { email: "erin@example.com", password: "erin-password-1", full_name: "Erin" },
    sys.owner,
  );
  expect(Object.keys(body).sort()).toEqual(["msg", "result", "user_id"]);
  expect(logs.some((l) => l.msg === "follow-up of the reply failed")).toBe(true);
});
