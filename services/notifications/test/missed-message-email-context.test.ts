/**
 * The topic's earlier messages that a missed-message email shows before a
 * mention, through the HTTP API and a real SMTP server: Zulip's
 * handle_missedmessage_emails adds get_context_for_message (the newest ten of
 * the topic from the fifteen minutes before the mention) to a channel
 * conversation whose oldest missed message mentions the user, less what the
 * user may not see; nothing for direct messages or for channel email
 * notifications without a mention.
 */
import { mongo } from "mongoose";
import { messaging } from "@teamchat/shared";
import { awayUser, mailsTo, postToChannel, subscribeToChannel } from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from "../../../test/support/smtp";
import { startSystem, type TestSystem } from "../../../test/support/system";

let smtp: TestSmtpServer;
let sys: TestSystem;
let ada: TestUser;
let max: TestUser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  sys = await startSystem({ env: { SMTP_URL: smtp.url } });
  ada = await sys.makeUser("Ada", 400, "Ada Sender");
  max = await sys.makeUser("Max", 400, "Max Speaker");
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await smtp?.stop();
});

/** The messages of a missed-message email: its text before the "--" that starts the footer. */
const messagesOf = (mail: ReceivedMail): string => mail.text.split("\n--\n")[0]!.trim();

const subscribe = (channel: string, users: TestUser[], settings: Record<string, unknown> = {}) =>
  subscribeToChannel(sys, channel, users, { send_new_subscription_messages: false, ...settings });

/** Dates a message back by `seconds`, as if sent that long ago. */
async function sentAgo(messageId: number, seconds: number): Promise<void> {
  const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
  try {
    await client
      .db(`${sys.config.MONGO_DB_PREFIX}_messaging`)
      .collection("messages")
      .updateOne(
        { realmId: sys.realm.id, messageId },
        { $set: { timestamp: Math.floor(Date.now() / 1000) - seconds } },
      );
  } finally {
    await client.close();
  }
}

async function mailWithSubject(user: TestUser, subject: string): Promise<ReceivedMail> {
  await smtp.waitFor(() => mailsTo(smtp, user).some((m) => m.subject === subject));
  return mailsTo(smtp, user).find((m) => m.subject === subject)!;
}

describe("a mention's email shows the topic's earlier messages", () => {
  it("the newest ten before it, the topic's name in any case, in order with their senders", async () => {
    const lena = await awayUser(sys, "Lena");
    await subscribe("planning", [ada, max, lena]);
    await postToChannel(sys, ada, "planning", "plans", "plan 1");
    for (let n = 2; n <= 11; n++) {
      await postToChannel(sys, n % 3 === 0 ? max : ada, "planning", n === 5 ? "PLANS" : "plans", `plan ${n}`);
      if (n === 7) await postToChannel(sys, max, "planning", "elsewhere", "another topic");
    }
    await postToChannel(sys, max, "planning", "plans", "@**Lena Person** what do you think?");
    const mail = await mailWithSubject(lena, "#planning > plans");
    expect(messagesOf(mail)).toBe(
      [
        "Ada Sender: plan 2",
        "Max Speaker: plan 3",
        "Ada Sender: plan 4",
        "plan 5",
        "Max Speaker: plan 6",
        "Ada Sender: plan 7",
        "plan 8",
        "Max Speaker: plan 9",
        "Ada Sender: plan 10",
        "plan 11",
        "Max Speaker: @**Lena Person** what do you think?",
      ].join("\n\n"),
    );
    expect(mail.text).toContain("You are receiving this because you were personally mentioned.");
  });

  it("only those sent in the fifteen minutes before it", async () => {
    const mia = await awayUser(sys, "Mia");
    await subscribe("retro", [ada, max, mia]);
    await sentAgo(await postToChannel(sys, ada, "retro", "sprint", "last sprint, long ago"), 16 * 60);
    await sentAgo(await postToChannel(sys, max, "retro", "sprint", "fourteen minutes ago"), 14 * 60);
    await postToChannel(sys, ada, "retro", "sprint", "@**Mia Person** notes?");
    const mail = await mailWithSubject(mia, "#retro > sprint");
    expect(messagesOf(mail)).toBe(
      ["Max Speaker: fourteen minutes ago", "Ada Sender: @**Mia Person** notes?"].join("\n\n"),
    );
  });

  it("not those of a channel's protected history from before the user joined", async () => {
    const noor = await awayUser(sys, "Noor");
    await subscribe("vault", [sys.owner, ada, max], { invite_only: true, history_public_to_subscribers: false });
    await postToChannel(sys, ada, "vault", "secrets", "before Noor joined");
    await subscribe("vault", [noor]);
    await postToChannel(sys, max, "vault", "secrets", "after Noor joined");
    await postToChannel(sys, ada, "vault", "secrets", "@**Noor Person** welcome");
    const mail = await mailWithSubject(noor, "#vault > secrets");
    expect(messagesOf(mail)).toBe(
      ["Max Speaker: after Noor joined", "Ada Sender: @**Noor Person** welcome"].join("\n\n"),
    );
  });
});

describe("no earlier messages", () => {
  it("for a direct message, nor for a channel's email notifications without a mention", async () => {
    const omar = await awayUser(sys, "Omar");
    await subscribe("news", [ada, omar]);
    await postToChannel(sys, ada, "news", "weekly", "before the notifications were on");
    const { stream_id } = await sys.call(messaging.getStreamId, { stream: "news" }, omar);
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "email_notifications", value: true }] },
      omar,
    );
    await postToChannel(sys, ada, "news", "weekly", "the weekly update");
    const read = (await sys.call(messaging.sendMessage, { type: "direct", to: [omar.userId], content: "seen" }, ada))
      .id;
    await sys.call(messaging.updateMessageFlags, { messages: [read], op: "add", flag: "read" }, omar);
    await sys.call(messaging.sendMessage, { type: "direct", to: [omar.userId], content: "are you there?" }, ada);
    const channelMail = await mailWithSubject(omar, "#news > weekly");
    expect(messagesOf(channelMail)).toBe("Ada Sender: the weekly update");
    const dmMail = await mailWithSubject(omar, "DMs with Ada Sender");
    expect(messagesOf(dmMail)).toBe("Ada Sender: are you there?");
  });
});
