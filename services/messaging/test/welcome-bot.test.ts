/**
 * Welcome Bot's custom message (Zulip feature level 416): the organization's
 * welcome_message_custom_text (PATCH /realm, register, the realm event), an
 * invitation's own text, the message a new user gets from Welcome Bot
 * (zerver/lib/onboarding.py's get_custom_welcome_message_string, starred as
 * send_initial_direct_messages_to_user's are), and
 * POST /realm/test_welcome_bot_custom_message.
 */
import { identity, messaging, notifications, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("Admin", 200, "Admin");
  moderator = await org.makeUser("Moderator", 300, "Moderator");
  member = await org.makeUser("Member", 400, "Member");
  guest = await org.makeUser("Guest", 600, "Guest");
});
afterAll(() => org?.stop());

const WELCOME_BOT = "welcome-bot@zulip.com";
const MUST_BE_ADMIN = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
const TOO_LONG = badRequestError("welcome_message_custom_text is too long (limit: 8000 characters)");
/** Zulip's get_custom_welcome_message_string for `text` whose lines open no fence. */
const customMessage = (text: string) => `A note from @_*role:administrators*:\n\`\`\`quote\n${text}\n\`\`\``;

const setDefault = (text: string, user: Credentials = org.owner) =>
  org.call(realmConfig.updateRealm, { welcome_message_custom_text: text }, user);
const testMessage = (text: string, user: Credentials = admin) =>
  org.call(messaging.testWelcomeBotCustomMessage, { welcome_message_custom_text: text }, user);

/** The direct messages Welcome Bot sent `user`, oldest first. */
const fromWelcomeBot = async (user: Credentials) =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        apply_markdown: false,
        narrow: [{ operator: "is", operand: "dm" }],
      },
      user,
    )
  ).messages.filter((m) => m.sender_email === WELCOME_BOT);

/** Joins through a reusable link an administrator made with `params`; the new user's credentials. */
async function joinByLink(
  name: string,
  params: Partial<ParamsIn<typeof identity.createInviteLink>> = {},
): Promise<Credentials> {
  const { invite_link } = await org.call(identity.createInviteLink, params, admin);
  const email = `${name.toLowerCase()}@example.org`;
  const joined = await org.call(
    identity.acceptInvitation,
    { key: invite_link, full_name: name, password: "new-password-1", email },
    null,
  );
  return { email: joined.email, apiKey: joined.api_key };
}

describe("the organization's welcome_message_custom_text", () => {
  it("is empty at first, and register shows it", async () => {
    const state = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["realm"] },
      member,
    )) as unknown as {
      realm_welcome_message_custom_text: string;
    };
    expect(state.realm_welcome_message_custom_text).toBe("");
  });

  it("PATCH /realm sets it for administrators: 'updated', one realm update event, register's new value", async () => {
    const reader = await EventReader.register(org.api(member), { event_types: ["realm"] });
    expect(await setDefault("Read #**general** first.", admin)).toEqual({
      result: "success",
      msg: "",
      welcome_message_custom_text: "updated",
    });
    const events = await reader.until((e) => e.length >= 1);
    expect(events.map(({ id: _, ...e }) => e)).toEqual([
      { type: "realm", op: "update", property: "welcome_message_custom_text", value: "Read #**general** first." },
    ]);
    const state = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["realm"] },
      member,
    )) as unknown as {
      realm_welcome_message_custom_text: string;
    };
    expect(state.realm_welcome_message_custom_text).toBe("Read #**general** first.");
    // the same value again changes nothing
    expect(await setDefault("Read #**general** first.", admin)).toEqual({ result: "success", msg: "" });
    await setDefault("");
  });

  it("is refused to non-administrators and beyond Zulip's 8000 characters", async () => {
    for (const user of [moderator, member, guest]) await expectZulipError(setDefault("Mine", user), MUST_BE_ADMIN);
    await expectZulipError(setDefault("a".repeat(8001)), TOO_LONG);
    await setDefault("a".repeat(8000));
    await setDefault("");
  });
});

describe("Welcome Bot's custom message to a new user", () => {
  it("sends the invitation's text, starred, from Welcome Bot", async () => {
    const text = "Welcome to the team!\n```\ncode\n```";
    const joined = await joinByLink("Newcomer", { welcome_message_custom_text: text });
    const messages = await fromWelcomeBot(joined);
    expect(messages).toHaveLength(1);
    // the text holds a fence of three backticks, so the quote takes four
    expect(messages[0]).toMatchObject({
      type: "private",
      sender_email: WELCOME_BOT,
      sender_full_name: "Welcome Bot",
      client: "Internal",
      content: `A note from @_*role:administrators*:\n\`\`\`\`quote\n${text}\n\`\`\`\``,
    });
    expect(messages[0]!.flags).toContain("starred");
    // unread, as Zulip leaves the onboarding messages
    expect(messages[0]!.flags).not.toContain("read");
  });

  it("sends the organization's text when the invitation names none, and nothing when the text is empty", async () => {
    await setDefault("Our guidelines: be kind.");
    try {
      const byDefault = await joinByLink("Defaulted");
      expect((await fromWelcomeBot(byDefault)).map((m) => m.content)).toEqual([
        customMessage("Our guidelines: be kind."),
      ]);
      // an invitation's empty text sends nothing, whatever the organization's
      const silenced = await joinByLink("Silenced", { welcome_message_custom_text: "" });
      expect(await fromWelcomeBot(silenced)).toEqual([]);
      // a user an administrator creates (POST /users) gets the organization's, as Zulip's process_new_human_user sends it
      const created = await org.makeUser("Created");
      expect((await fromWelcomeBot(created)).map((m) => m.content)).toEqual([
        customMessage("Our guidelines: be kind."),
      ]);
    } finally {
      await setDefault("");
    }
    // and nothing when the organization's is empty
    expect(await fromWelcomeBot(await joinByLink("Plain"))).toEqual([]);
  });

  it("only administrators may give an invitation its own text", async () => {
    await expectZulipError(
      org.call(
        identity.sendInvites,
        { invitee_emails: "x@example.org", stream_ids: [], welcome_message_custom_text: "Hi" },
        member,
      ),
      // a plain JsonableError in Zulip's invite views
      badRequestError("Must be an organization administrator"),
    );
  });
});

describe("POST /realm/test_welcome_bot_custom_message", () => {
  it("sends the acting administrator the custom message and answers its id", async () => {
    const reply = await testMessage("Welcome Bot custom message for testing");
    expect(reply).toEqual({ result: "success", msg: "", message_id: expect.any(Number) });
    const [sent] = (await fromWelcomeBot(admin)).slice(-1);
    expect(sent).toMatchObject({
      id: reply.message_id,
      sender_email: WELCOME_BOT,
      content: customMessage("Welcome Bot custom message for testing"),
    });
    // not starred: only a new user's onboarding messages are
    expect(sent!.flags).not.toContain("starred");
    const rendered = await org.call(messaging.getMessage, { message_id: reply.message_id }, admin);
    // the text is quoted (system groups' mentions do not render here yet)
    expect(rendered.message.content).toContain(
      "<blockquote>\n<p>Welcome Bot custom message for testing</p>\n</blockquote>",
    );
    // the organization's owner is an administrator too
    expect((await testMessage("From the owner", org.owner)).message_id).toBeGreaterThan(reply.message_id);
  });

  it("refuses an empty text, a text beyond 8000 characters and a missing one", async () => {
    await expectZulipError(testMessage(""), badRequestError("Message must not be empty"));
    await expectZulipError(testMessage("a".repeat(8001)), TOO_LONG);
    await expectZulipError(org.api(admin).post("/realm/test_welcome_bot_custom_message"), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'welcome_message_custom_text' argument",
      var_name: "welcome_message_custom_text",
    });
  });

  it("is for administrators only", async () => {
    for (const user of [moderator, member, guest]) await expectZulipError(testMessage("Hi", user), MUST_BE_ADMIN);
    expect(await fromWelcomeBot(member)).toEqual([]);
  });
});
