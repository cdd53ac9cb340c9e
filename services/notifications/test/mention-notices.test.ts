/**
 * Mentions' missed-message emails and mobile pushes through the HTTP API, on
 * a private system with a real SMTP server and a local push notification
 * service: a group mention names the group (Zulip's mentioned_user_group_id,
 * the smallest group when several notify a user; its email line and push
 * fields), and a topic wildcard notifies only the topic's participants.
 */
import { identity, messaging } from "@teamchat/shared";
import {
  addAndroidDevice,
  awayUser,
  eventually,
  mailsTo,
  postToChannel,
  pushesTo,
  sleep,
  subscribeToChannel,
} from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type TestSmtpServer } from "../../../test/support/smtp";
import { startTestBouncer, type TestBouncer } from "../../../test/support/push-bouncer";
import { startSystem, type TestSystem } from "../../../test/support/system";

let smtp: TestSmtpServer;
let bouncer: TestBouncer;
let sys: TestSystem;
let sender: TestUser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  bouncer = await startTestBouncer();
  sys = await startSystem({ env: { ...bouncer.env, SMTP_URL: smtp.url, METRICS_PORT: "0" } });
  sender = await sys.makeUser("Sender", 400, "Ada Sender");
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await bouncer?.close();
  await smtp?.stop();
});

/** A user who is away, mailed after 1 s batches, with an Android device. */
async function awayWithDevice(name: string): Promise<TestUser> {
  const user = await awayUser(sys, name);
  await addAndroidDevice(sys, user);
  return user;
}

const makeGroup = async (name: string, members: TestUser[]) =>
  (
    await sys.call(
      identity.createUserGroup,
      { name, description: "", members: members.map((u) => u.userId) },
      sys.owner,
    )
  ).group_id;

describe("a group mention", () => {
  it("names the smallest mentioned group the user is in, in the email and the push payload", async () => {
    const gina = await awayWithDevice("Gina");
    const hank = await awayWithDevice("Hank");
    const ivy = await awayWithDevice("Ivy");
    const support = await makeGroup("support", [gina, hank, ivy]);
    const leads = await makeGroup("leads", [gina]);
    await subscribeToChannel(sys, "ops", [sender, gina, hank, ivy]);
    // Ivy is mentioned personally as well: that comes first, and names no group
    const id = await postToChannel(sys, sender, "ops", "incident", "@*support* @*leads* @**Ivy Person** please check");

    await smtp.waitFor(() => [gina, hank, ivy].every((u) => mailsTo(smtp, u).length > 0));
    expect(mailsTo(smtp, gina)[0]!.text).toContain("You are receiving this because @leads was mentioned.");
    expect(mailsTo(smtp, hank)[0]!.text).toContain("You are receiving this because @support was mentioned.");
    expect(mailsTo(smtp, ivy)[0]!.text).toContain("You are receiving this because you were personally mentioned.");
    for (const u of [gina, hank, ivy]) expect(mailsTo(smtp, u)[0]!.text).not.toContain("a group you belong to");

    const [toGina] = await eventually(
      () => pushesTo(bouncer, gina),
      (p) => p.length > 0,
    );
    expect(toGina).toMatchObject({
      event: "message",
      zulip_message_id: id,
      mentioned_user_group_id: leads,
      mentioned_user_group_name: "leads",
    });
    const [toHank] = await eventually(
      () => pushesTo(bouncer, hank),
      (p) => p.length > 0,
    );
    expect(toHank).toMatchObject({ mentioned_user_group_id: support, mentioned_user_group_name: "support" });
    const [toIvy] = await eventually(
      () => pushesTo(bouncer, ivy),
      (p) => p.length > 0,
    );
    expect(toIvy).toMatchObject({ zulip_message_id: id });
    expect(toIvy).not.toHaveProperty("mentioned_user_group_id");
    expect(toIvy).not.toHaveProperty("mentioned_user_group_name");
  });
});

describe("a topic wildcard", () => {
  it("emails and pushes the topic's participants, not the channel's other subscribers", async () => {
    const jo = await awayWithDevice("Jo");
    const kim = await awayWithDevice("Kim");
    await subscribeToChannel(sys, "forum", [sender, jo, kim]);
    await postToChannel(sys, jo, "forum", "lunch", "pizza?");
    await postToChannel(sys, sender, "forum", "lunch", "@**topic** where shall we go?");
    await smtp.waitFor(() => mailsTo(smtp, jo).length > 0);
    expect(mailsTo(smtp, jo)[0]!.text).toContain(
      "You are receiving this because all topic participants were mentioned in #forum > lunch.",
    );
    await eventually(
      () => pushesTo(bouncer, jo),
      (p) => p.length > 0,
    );
    // a later mention of Kim is mailed alone: the topic wildcard never reached her
    await postToChannel(sys, sender, "forum", "dinner", "@**Kim Person** and you?");
    await smtp.waitFor(() => mailsTo(smtp, kim).length > 0);
    await sleep(1500);
    expect(mailsTo(smtp, kim).map((m) => m.subject)).toEqual(["#forum > dinner"]);
    expect(pushesTo(bouncer, kim)).toHaveLength(1);
  });
});

describe("a mention added by an edit", () => {
  const edit = (id: number, content: string) => sys.call(messaging.updateMessage, { message_id: id, content }, sender);

  it("notifies the newly mentioned user once, not the one mentioned before nor one notified of every message", async () => {
    const lee = await awayWithDevice("Lee");
    const max = await awayWithDevice("Max");
    const nia = await awayWithDevice("Nia");
    await subscribeToChannel(sys, "review", [sender, lee, max, nia]);
    const { stream_id } = await sys.call(messaging.getStreamId, { stream: "review" }, nia);
    // Nia has the channel's email notifications on: Zulip takes it she was notified when it was sent
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "email_notifications", value: true }] },
      nia,
    );
    const id = await postToChannel(sys, sender, "review", "draft", "@**Lee Person** please look");
    await smtp.waitFor(() => mailsTo(smtp, lee).length > 0 && mailsTo(smtp, nia).length > 0);
    await eventually(
      () => pushesTo(bouncer, lee),
      (p) => p.length > 0,
    );

    await edit(id, "@**Lee Person** and @**Max Person** please look");
    await smtp.waitFor(() => mailsTo(smtp, max).length > 0);
    const [toMax] = await eventually(
      () => pushesTo(bouncer, max),
      (p) => p.length > 0,
    );
    expect(toMax).toMatchObject({ event: "message", zulip_message_id: id });
    expect(mailsTo(smtp, max)[0]!.subject).toBe("#review > draft");
    expect(mailsTo(smtp, max)[0]!.text).toContain("Ada Sender: @**Lee Person** and @**Max Person** please look");
    expect(mailsTo(smtp, max)[0]!.text).toContain("You are receiving this because you were personally mentioned.");

    // a typo fix keeps both mentions: nobody is notified again
    await edit(id, "@**Lee Person** and @**Max Person** please look!");
    await sleep(2500);
    expect(mailsTo(smtp, lee)).toHaveLength(1);
    expect(pushesTo(bouncer, lee)).toHaveLength(1);
    expect(mailsTo(smtp, max)).toHaveLength(1);
    expect(pushesTo(bouncer, max)).toHaveLength(1);
    expect(mailsTo(smtp, nia)).toHaveLength(1);
    expect(pushesTo(bouncer, nia)).toHaveLength(0);
  });

  it("never for a direct message, whose sending notified its recipients already", async () => {
    const olga = await awayWithDevice("Olga");
    const pat = await awayWithDevice("Pat");
    const { id } = await sys.call(
      messaging.sendMessage,
      { type: "direct", to: [olga.userId, pat.userId], content: "plans" },
      sender,
    );
    await smtp.waitFor(() => mailsTo(smtp, olga).length > 0 && mailsTo(smtp, pat).length > 0);
    await edit(id, "plans, @**Pat Person**");
    await sleep(2500);
    expect(mailsTo(smtp, pat)).toHaveLength(1);
    expect(
      await eventually(
        () => pushesTo(bouncer, pat),
        (p) => p.length > 0,
      ),
    ).toHaveLength(1);
  });
});
