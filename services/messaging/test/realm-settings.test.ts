/**
 * Organization settings changed by PATCH /realm take effect in messaging at
 * once: every instance drops its copy of the settings on the realm event,
 * which realm-config publishes before replying.
 */
import { messaging, realmConfig } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { backdateMessages, createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  await createChannel(org, alice, "design", [alice.userId]);
});
afterAll(() => org?.stop());

const send = async (topic: string, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "design", topic, content }, alice)).id;

it("a lowered edit limit refuses the next edit", async () => {
  const id = await send("limits", "first");
  await backdateMessages(org, [id], 120);
  // within the default 600 s: allowed, and messaging now holds the settings
  expect((await org.call(messaging.updateMessage, { message_id: id, content: "edited" }, alice)).result).toBe(
    "success",
  );
  await org.call(realmConfig.updateRealm, { message_content_edit_limit_seconds: 60 }, org.owner);
  // 120 s is past 60 s and Zulip's 20 s of grace
  await expectZulipError(
    org.call(messaging.updateMessage, { message_id: id, content: "too late" }, alice),
    badRequestError("The time limit for editing this message has passed"),
  );
});

it("a new-channel announcement channel gets Notification Bot's announcement of the next channel", async () => {
  const announcements = await createChannel(org, alice, "announcements", [alice.userId]);
  await org.call(messaging.subscribe, { subscriptions: [{ name: "before" }], announce: true }, alice);
  await org.call(realmConfig.updateRealm, { new_stream_announcements_stream_id: announcements }, org.owner);
  await org.call(messaging.subscribe, { subscriptions: [{ name: "after" }], announce: true }, alice);
  const { messages } = await org.call(
    messaging.getMessages,
    {
      anchor: "oldest",
      num_before: 0,
      num_after: 100,
      apply_markdown: false,
      narrow: [{ operator: "channel", operand: "announcements" }],
    },
    alice,
  );
  const announced = messages.filter((m) => m.subject === "new channels");
  expect(announced).toHaveLength(1);
  expect(announced[0]!.content).toContain("#**after**");
});
