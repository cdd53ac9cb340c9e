/**
 * POST /messages/{message_id}/report (Zulip's message_report.py, FL 382):
 * Notification Bot posts the report in the moderation request channel, for
 * channel messages, direct messages and group direct messages; Zulip's errors
 * in its order; only messages the reporter may see.
 */
import { messaging, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let moderation: number;
let design: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  moderation = await createChannel(org, org.owner, "reported messages", [org.owner.userId], { invite_only: true });
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  await setModerationChannel(moderation);
});
afterAll(() => org?.stop());

const setModerationChannel = (id: number) =>
  org.call(realmConfig.updateRealm, { moderation_request_channel_id: id }, org.owner);
const report = (user: Credentials, params: ParamsIn<typeof messaging.reportMessage>) =>
  org.call(messaging.reportMessage, params, user);
const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
/** The reports in the moderation channel, newest last, as the owner reads them. */
const reports = async () =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        apply_markdown: false,
        allow_empty_topic_name: true,
        narrow: [
          { operator: "channel", operand: moderation },
          { operator: "topic", operand: "channel events", negated: true },
        ],
      },
      org.owner,
    )
  ).messages as Array<Record<string, unknown>>;
const timestampOf = async (id: number, reader: Credentials = org.owner) =>
  (await org.call(messaging.getMessage, { message_id: id }, reader)).message.timestamp;
const time = (seconds: number) => `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "+00:00")}>`;
const mention = (u: TestUser) => `@_**${u.fullName}|${u.userId}**`;
const success = { result: "success", msg: "" };

describe("POST /messages/{message_id}/report", () => {
  it("posts a channel message's report as Notification Bot in '<sender> moderation', linking the message", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "colors", content: "I squeeze toothpaste" });
    expect(
      await report(alice, { message_id: id, report_type: "harassment", description: "crime against food" }),
    ).toEqual(success);
    const [posted] = (await reports()).slice(-1);
    expect(posted).toMatchObject({
      sender_full_name: "Notification Bot",
      client: "Internal",
      subject: "Bob moderation",
      stream_id: moderation,
      content:
        `${mention(alice)} reported a message sent by ${mention(bob)} at ${time(await timestampOf(id))}.\n` +
        "```quote\n**Harassment**. crime against food\n```\n\n" +
        `\`\`\` spoiler Original message at #**design>colors@${id}**\nI squeeze toothpaste\n\`\`\``,
    });
    // rendered as a message link
    const rendered = await org.call(messaging.getMessage, { message_id: posted!.id as number }, org.owner);
    expect(rendered.message.content).toContain(
      `<a class="message-link" href="/#narrow/channel/${design}-design/topic/colors/near/${id}">#design &gt; colors @ 💬</a>`,
    );
  });

  it("reports a direct message, a group's, and one's own; the fence outgrows the message's fences", async () => {
    const dm = await send(bob, { type: "private", to: [alice.userId], content: "````\ncode\n````" });
    await report(alice, { message_id: dm, report_type: "spam" });
    const own = await send(alice, { type: "private", to: [bob.userId], content: "mine" });
    await report(alice, { message_id: own, report_type: "norms" });
    const toSelf = await send(alice, { type: "private", to: [alice.userId], content: "me" });
    await report(alice, { message_id: toSelf, report_type: "inappropriate" });
    const group = await send(bob, { type: "private", to: [alice.userId, carol.userId, guest.userId], content: "all" });
    await report(carol, { message_id: group, report_type: "other", description: "why" });
    const url = (ids: number[], id: number) =>
      `${org.realm.uri}/#narrow/dm/${ids.sort((a, b) => a - b).join(",")}${ids.length >= 3 ? "-group" : ""}/near/${id}`;
    const pair = [alice.userId, bob.userId];
    const others = [alice, carol, guest].map(mention).sort();
    expect((await reports()).slice(-4).map((m) => [m.subject, m.content])).toEqual([
      [
        "Bob moderation",
        `${mention(alice)} reported a direct message sent by ${mention(bob)} at ${time(await timestampOf(dm, bob))}.\n` +
          "```quote\n**Spam**. \n```\n\n" +
          `\`\`\`\`\` spoiler [Original message](${url(pair, dm)})\n\`\`\`\`\ncode\n\`\`\`\`\n\`\`\`\`\``,
      ],
      [
        "Alice moderation",
        `${mention(alice)} reported a direct message sent by ${mention(alice)} to ${mention(bob)} at ${time(await timestampOf(own, alice))}.\n` +
          "```quote\n**Violates community norms**. \n```\n\n" +
          `\`\`\` spoiler [Original message](${url(pair, own)})\nmine\n\`\`\``,
      ],
      [
        "Alice moderation",
        `${mention(alice)} reported a direct message sent by ${mention(alice)} to ${mention(alice)} at ${time(await timestampOf(toSelf, alice))}.\n` +
          "```quote\n**Inappropriate content**. \n```\n\n" +
          `\`\`\` spoiler [Original message](${url([alice.userId], toSelf)})\nme\n\`\`\``,
      ],
      [
        "Bob moderation",
        `${mention(carol)} reported a direct message sent by ${mention(bob)} to ${others[0]}, ${others[1]}, and ${others[2]} at ${time(await timestampOf(group, bob))}.\n` +
          "```quote\n**Other reason**. why\n```\n\n" +
          `\`\`\` spoiler [Original message](${url([alice.userId, bob.userId, carol.userId, guest.userId], group)})\nall\n\`\`\``,
      ],
    ]);
  });

  it("cuts a long message to leave room for the report; the empty topic where the channel allows only that", async () => {
    const long = "x".repeat(10_000);
    const id = await send(bob, { type: "stream", to: "design", topic: "long", content: long });
    await org.call(messaging.updateStream, { stream_id: moderation, topics_policy: "empty_topic_only" }, org.owner);
    await report(alice, { message_id: id, report_type: "spam" });
    await org.call(messaging.updateStream, { stream_id: moderation, topics_policy: "inherit" }, org.owner);
    const [posted] = (await reports()).slice(-1);
    expect(posted!.subject).toBe("");
    // Zulip's MAX_REPORT_MESSAGE_SNIPPET_LENGTH: 10,000 less the explanation's 1,000 and 500 of frame
    const suffix = "\n[message truncated]";
    expect(posted!.content).toContain(`\n${"x".repeat(8500 - suffix.length)}${suffix}\n\`\`\``);
  });

  it("refuses what Zulip refuses, in its order, and posts nothing", async () => {
    const id = await send(bob, { type: "stream", to: "design", topic: "colors", content: "hello" });
    const dm = await send(bob, { type: "private", to: [carol.userId], content: "secret" });
    const before = (await reports()).length;
    const raw = (params: Record<string, unknown>) => org.api(alice).post(`/messages/${id}/report`, params);
    await expectZulipError(raw({ report_type: "rude" }), badRequestError("Invalid report_type"));
    await expectZulipError(raw({}), {
      ...badRequestError("Missing 'report_type' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "report_type",
    });
    await expectZulipError(
      raw({ report_type: "spam", description: "d".repeat(1001) }),
      badRequestError("description is too long (limit: 1000 characters)"),
    );
    await expectZulipError(raw({ report_type: "other" }), badRequestError("An explanation is required."));
    // another's direct message, and one that does not exist
    await expectZulipError(
      report(alice, { message_id: dm, report_type: "spam" }),
      badRequestError("Invalid message(s)"),
    );
    await expectZulipError(
      report(alice, { message_id: 99_999_999, report_type: "spam" }),
      badRequestError("Invalid message(s)"),
    );
    // a guest does not see a public channel's messages unsubscribed
    await expectZulipError(
      report(guest, { message_id: id, report_type: "spam" }),
      badRequestError("Invalid message(s)"),
    );
    await setModerationChannel(-1);
    await expectZulipError(
      report(alice, { message_id: dm, report_type: "spam" }),
      badRequestError("Message reporting is not enabled in this organization."),
    );
    await setModerationChannel(moderation);
    expect(await reports()).toHaveLength(before);
  });
});
