/**
 * Missed-message emails through the HTTP API, on a private system whose mail
 * goes to a real SMTP server started here (SMTP_URL): who is emailed of what
 * (Zulip's UserMessageNotificationsData and idleness), one email per
 * conversation after the user's batching period, content only where
 * message_content_in_email_notifications allows, nothing for messages read
 * or deleted in the meantime; a failing mail server delays the mail, which is
 * then sent once, and the failure shows in the metrics. New-login mail goes
 * through the same transport.
 */
import { mongo } from "mongoose";
import { identity, messaging, notifications } from "@teamchat/shared";
import { ApiClient } from "@teamchat/shared/src/testing/api";
import { callContract } from "../../../test/support/call";
import { awayUser, mailsTo, postToChannel, sleep, subscribeToChannel } from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from "../../../test/support/smtp";
import { startSystem, type TestSystem } from "../../../test/support/system";

let smtp: TestSmtpServer;
let sys: TestSystem;
let sender: TestUser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  sys = await startSystem({ env: { SMTP_URL: smtp.url, METRICS_PORT: "0" } });
  sender = await sys.makeUser("Sender", 400, "Ada Sender");
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await smtp?.stop();
});

const dm = async (from: TestUser, to: TestUser[], content: string) =>
  (await sys.call(messaging.sendMessage, { type: "direct", to: to.map((u) => u.userId), content }, from)).id;

/** Nothing reaches `user` while a mail that `witness` is sent after it arrives, and a batch more. */
async function expectNoMail(user: TestUser, witness: TestUser): Promise<void> {
  await dm(sender, [witness], "witness");
  await smtp.waitFor(() => mailsTo(smtp, witness).length > 0);
  await sleep(2500);
  expect(mailsTo(smtp, user)).toEqual([]);
}

describe("who is emailed", () => {
  it("a direct message to a user who is away: one email to them, none to the sender", async () => {
    const bob = await awayUser(sys, "Bob");
    await dm(sender, [bob], "Are you there, Bob?");
    const [mail] = await smtp.waitFor(() => mailsTo(smtp, bob).length > 0).then(() => mailsTo(smtp, bob));
    expect(mail!.to).toEqual([bob.email]);
    expect(mail!.subject).toBe("DMs with Ada Sender");
    expect(mail!.text).toContain("Ada Sender: Are you there, Bob?");
    expect(mail!.text).toContain("Reply in Test Organization Zulip:");
    expect(mailsTo(smtp, sender)).toEqual([]);
  });

  it("no email with enable_offline_email_notifications off, from a muted user, or to a user who is online", async () => {
    const quiet = await awayUser(sys, "Quiet", { enable_offline_email_notifications: false });
    const muter = await awayUser(sys, "Muter");
    await sys.call(messaging.muteUser, { muted_user_id: sender.userId }, muter);
    const online = await awayUser(sys, "Online");
    // online: an event queue that takes messages, and an active presence
    await sys.call(notifications.registerQueue, { event_types: ["message"] }, online);
    await sys.call(identity.updatePresence, { status: "active" }, online);
    for (const user of [quiet, muter, online]) await dm(sender, [user], "Psst");
    const witness = await awayUser(sys, "Witness1");
    await expectNoMail(quiet, witness);
    expect(mailsTo(smtp, muter)).toEqual([]);
    expect(mailsTo(smtp, online)).toEqual([]);
  });

  it("channel messages: mentions, wildcard mentions and channel email notifications, never in a muted topic", async () => {
    const carol = await awayUser(sys, "Carol");
    const dave = await awayUser(sys, "Dave");
    await subscribeToChannel(sys, "alerts", [sender, carol, dave]);
    const { stream_id } = await sys.call(messaging.getStreamId, { stream: "alerts" }, carol);
    // dave wants every message of the channel by email, but mutes one topic
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "email_notifications", value: true }] },
      dave,
    );
    await sys.call(messaging.updateUserTopic, { stream_id, topic: "noise", visibility_policy: 1 }, dave);
    await postToChannel(sys, sender, "alerts", "noise", "@**all** the noise");
    await postToChannel(sys, sender, "alerts", "deploy", "@**Carol Person** the deploy is done");
    await smtp.waitFor(() => mailsTo(smtp, carol).length > 0 && mailsTo(smtp, dave).length > 0);
    await sleep(1500);
    // carol: mentioned in "deploy", and wildcard-mentioned in "noise" (her topic is not muted)
    expect(
      mailsTo(smtp, carol)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(["#alerts > deploy", "#alerts > noise"]);
    const deploy = mailsTo(smtp, carol).find((m) => m.subject === "#alerts > deploy")!;
    expect(deploy.text).toContain("You are receiving this because you were personally mentioned.");
    const noise = mailsTo(smtp, carol).find((m) => m.subject === "#alerts > noise")!;
    expect(noise.text).toContain("You are receiving this because everyone was mentioned in #alerts.");
    // dave: the channel's email notifications for "deploy"; nothing for his muted "noise"
    expect(mailsTo(smtp, dave).map((m) => m.subject)).toEqual(["#alerts > deploy"]);
    expect(mailsTo(smtp, dave)[0]!.text).toContain(
      "You are receiving this because you have email notifications enabled for #alerts.",
    );
  });
});

describe("channel messages that mention nobody", () => {
  /** The subjects of the mails `user` got, in order. */
  const subjects = (user: TestUser) => mailsTo(smtp, user).map((m) => m.subject);
  const reason = (user: TestUser) => mailsTo(smtp, user).at(-1)!.text;
  /** Until a mail sent after what came before has arrived, and a batch more. */
  const settled = async (witnessName: string) => {
    const witness = await awayUser(sys, witnessName);
    await dm(sender, [witness], "witness");
    await smtp.waitFor(() => mailsTo(smtp, witness).length > 0);
    await sleep(2500);
  };

  it("email those whose own, channel or followed-topic settings ask for every message, as they change between sends", async () => {
    const erin = await awayUser(sys, "Uma");
    const frank = await awayUser(sys, "Vera");
    const gina = await awayUser(sys, "Walt");
    const hank = await awayUser(sys, "Xena", { enable_stream_email_notifications: true });
    const quiet = await awayUser(sys, "Yann");
    await subscribeToChannel(sys, "updates", [sender, erin, frank, gina, quiet], {
      send_new_subscription_messages: false,
    });
    const { stream_id } = await sys.call(messaging.getStreamId, { stream: "updates" }, erin);
    // a first message, which nobody's settings ask for
    await postToChannel(sys, sender, "updates", "news", "first");
    await settled("Witness4");
    for (const user of [erin, frank, gina, quiet]) expect(subjects(user)).toEqual([]);

    // erin turns every channel's email notifications on, frank follows the topic, gina turns the
    // channel's on; hank, whose own settings have them on, subscribes
    await sys.call(identity.updateSettings, { enable_stream_email_notifications: true } as never, erin);
    await sys.call(messaging.updateUserTopic, { stream_id, topic: "News", visibility_policy: 3 }, frank);
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "email_notifications", value: true }] },
      gina,
    );
    await subscribeToChannel(sys, "updates", [hank], { send_new_subscription_messages: false });
    await postToChannel(sys, sender, "updates", "news", "second");
    await smtp.waitFor(() => [erin, frank, gina, hank].every((u) => mailsTo(smtp, u).length > 0));
    for (const user of [erin, frank, gina, hank]) expect(subjects(user)).toEqual(["#updates > news"]);
    expect(reason(erin)).toContain("You are receiving this because you have email notifications enabled for #updates.");
    expect(reason(frank)).toContain(
      "You are receiving this because you have email notifications enabled for topics you follow.",
    );
    expect(reason(gina)).toContain("email notifications enabled for #updates.");
    expect(reason(hank)).toContain("email notifications enabled for #updates.");

    // another topic: frank follows only "news"; then erin turns hers off again, gina the channel's,
    // and hank mutes the channel
    await postToChannel(sys, sender, "updates", "other", "third");
    await smtp.waitFor(() => [erin, gina, hank].every((u) => mailsTo(smtp, u).length > 1));
    await sys.call(identity.updateSettings, { enable_stream_email_notifications: false } as never, erin);
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "email_notifications", value: false }] },
      gina,
    );
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "is_muted", value: true }] },
      hank,
    );
    await postToChannel(sys, sender, "updates", "other", "fourth");
    await settled("Witness5");
    expect(subjects(erin)).toEqual(["#updates > news", "#updates > other"]);
    expect(subjects(gina)).toEqual(["#updates > news", "#updates > other"]);
    expect(subjects(hank)).toEqual(["#updates > news", "#updates > other"]);
    expect(subjects(frank)).toEqual(["#updates > news"]);
    expect(subjects(quiet)).toEqual([]);
  });
});

describe("what the email says", () => {
  it("a batch: one email per conversation, each sender's messages in order", async () => {
    const erin = await awayUser(sys, "Erin", { email_notifications_batching_period_seconds: 3 });
    const other = await sys.makeUser("Other", 400, "Otto Other");
    await dm(sender, [erin], "first");
    await dm(sender, [erin], "second");
    await dm(other, [erin], "from Otto");
    await dm(sender, [erin, other], "to both of you");
    await smtp.waitFor(() => mailsTo(smtp, erin).length >= 3);
    await sleep(1500);
    const bySubject = new Map(mailsTo(smtp, erin).map((m) => [m.subject, m.text]));
    expect([...bySubject.keys()].sort()).toEqual([
      "DMs with Ada Sender",
      "DMs with Otto Other",
      "Group DMs with Ada Sender and Otto Other",
    ]);
    const fromAda = bySubject.get("DMs with Ada Sender")!;
    expect(fromAda).toContain("Ada Sender: first");
    expect(fromAda.indexOf("first")).toBeLessThan(fromAda.indexOf("second"));
    expect(fromAda).not.toContain("Ada Sender: second");
    expect(bySubject.get("Group DMs with Ada Sender and Otto Other")).toContain("Ada Sender: to both of you");
  });

  it("without the content when message_content_in_email_notifications is off", async () => {
    const frank = await awayUser(sys, "Frank", { message_content_in_email_notifications: false });
    await dm(sender, [frank], "the secret plan");
    await smtp.waitFor(() => mailsTo(smtp, frank).length > 0);
    const [mail] = mailsTo(smtp, frank);
    expect(mail!.subject).toBe("New messages");
    expect(mail!.text).not.toContain("secret plan");
    expect(mail!.text).toContain("you have chosen to hide message content in email notifications");
  });
});

describe("messages read or deleted within the batching period", () => {
  it("are not mailed", async () => {
    const gina = await awayUser(sys, "Gina", { email_notifications_batching_period_seconds: 3 });
    const read = await dm(sender, [gina], "read me now");
    const deleted = await dm(sender, [gina], "oops, deleted");
    await sys.call(messaging.updateMessageFlags, { messages: [read], op: "add", flag: "read" }, gina);
    await sys.call(messaging.deleteMessage, { message_id: deleted }, sender);
    const witness = await awayUser(sys, "Witness2");
    await sleep(1500);
    await expectNoMail(gina, witness);
  });
});

describe("a failing mail server", () => {
  it("delays the mail, which is sent once when the server takes it again; the failures are in the metrics", async () => {
    const hank = await awayUser(sys, "Hank");
    smtp.refuseNext(2);
    await dm(sender, [hank], "through the outage");
    // refused twice, then taken after the back-off (1 s, then 2 s)
    await smtp.waitFor(() => mailsTo(smtp, hank).length > 0, 20_000);
    expect(smtp.refused).toBe(2);
    await sleep(2000);
    expect(mailsTo(smtp, hank)).toHaveLength(1);
    const metrics = await (await fetch(`${sys.metricsUrls("messaging")[0]}/metrics`)).text();
    expect(metrics).toMatch(/teamchat_mail_sent_total\{[^}]*kind="missed_message"[^}]*outcome="failed"[^}]*\} [2-9]/);
  });
});

describe("a messaging instance that dies", () => {
  it("leaves its users' batches to another instance, which mails each once", async () => {
    await sys.startService("messaging");
    const ivy = await awayUser(sys, "Ivy", { email_notifications_batching_period_seconds: 3 });
    await dm(sender, [ivy], "still here after the crash");
    await sleep(1000);
    // the oldest instance drops off as a killed process does; the batch waits in the database
    await sys.killService("messaging");
    await smtp.waitFor(() => mailsTo(smtp, ivy).length > 0, 20_000);
    await sleep(2000);
    expect(mailsTo(smtp, ivy)).toHaveLength(1);
    expect(mailsTo(smtp, ivy)[0]!.text).toContain("Ada Sender: still here after the crash");
  });
});

/** The one-click link of a mail's List-Unsubscribe header, as this test reaches the gateway (the link names the organization's URL). */
function unsubscribeLinkOf(mail: ReceivedMail): string {
  expect(mail.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
  const link = /^<(.+)>$/.exec(mail.headers["list-unsubscribe"] ?? "")?.[1] ?? "";
  expect(link).toMatch(/^http:\/\/localhost\/accounts\/unsubscribe\/[a-z_]+\/[0-9a-f]{24}$/);
  return `${sys.baseUrl}${new URL(link).pathname}`;
}

describe("one-click unsubscribe", () => {
  it("a missed-message email's link, posted to as a mail client's button does, stops them; the page says so", async () => {
    const olive = await awayUser(sys, "Olive");
    const witness = await awayUser(sys, "Pia");
    await dm(sender, [olive], "first");
    await smtp.waitFor(() => mailsTo(smtp, olive).length > 0);
    const link = unsubscribeLinkOf(mailsTo(smtp, olive)[0]!);
    expect(link).toContain("/accounts/unsubscribe/missed_messages/");
    const res = await fetch(link, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await res.text();
    expect(page).toContain("<h1>Email settings updated</h1>");
    expect(page).toContain("and you won't get missed messages emails anymore.");
    expect(page).toContain('<a href="http://localhost/#settings">Zulip Settings page</a>');
    await dm(sender, [olive], "second");
    // a mail the witness is sent after it arrives, and a batch more: nothing more for Olive
    await dm(sender, [witness], "witness");
    await smtp.waitFor(() => mailsTo(smtp, witness).length > 0);
    await sleep(2500);
    expect(mailsTo(smtp, olive).map((m) => m.text.split("\n")[0])).toEqual(["Ada Sender: first"]);
  });

  it("a link of an unknown kind or key is refused with Zulip's page, and changes nothing", async () => {
    const quentin = await awayUser(sys, "Quentin");
    await dm(sender, [quentin], "one");
    await smtp.waitFor(() => mailsTo(smtp, quentin).length > 0);
    const link = unsubscribeLinkOf(mailsTo(smtp, quentin)[0]!);
    for (const wrong of [
      link.replace("/missed_messages/", "/everything/"),
      link.replace(/\/[0-9a-f]{24}$/, "/0123456789abcdef01234567"),
    ]) {
      const res = await fetch(wrong);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("<h1>Unknown email unsubscribe request</h1>");
    }
    await dm(sender, [quentin], "two");
    await smtp.waitFor(() => mailsTo(smtp, quentin).length > 1);
  });
});

describe("new-login mail", () => {
  /** Makes the account older than Zulip's JUST_CREATED_THRESHOLD (a login right after creation is not mailed). */
  async function ageAccount(user: TestUser): Promise<void> {
    const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
    try {
      await client
        .db(`${sys.config.MONGO_DB_PREFIX}_identity`)
        .collection("users")
        .updateOne(
          { realmId: sys.realm.id, userId: user.userId },
          { $set: { dateJoined: new Date(Date.now() - 3600_000) } },
        );
    } finally {
      await client.close();
    }
    // identity's user cache is dropped by a change to the user
    await sys.call(identity.updateUser, { user_id: user.userId, full_name: `${user.fullName} Aged` }, sys.owner);
  }
  const login = (user: TestUser) =>
    sys.call(identity.fetchApiKey, { username: user.email, password: user.password }, null);

  it("a password login is mailed to the user, unless enable_login_emails is off", async () => {
    const jane = await sys.makeUser("Jane");
    const kate = await sys.makeUser("Kate");
    await sys.call(identity.updateSettings, { enable_login_emails: false } as never, kate);
    // just made: the logins that made them are not mailed
    expect(mailsTo(smtp, jane)).toEqual([]);
    await ageAccount(jane);
    await ageAccount(kate);
    await login(jane);
    await login(kate);
    await smtp.waitFor(() => mailsTo(smtp, jane).length > 0);
    const [mail] = mailsTo(smtp, jane);
    // the tests' User-Agent names neither a browser nor an operating system that uap-core knows
    expect(mail!.subject).toBe("New login from An unknown browser on an unknown operating system");
    expect(mail!.text).toContain("We noticed a recent login for the following Zulip account.");
    expect(mail!.text).toContain(`Email: ${jane.email}`);
    await sleep(1000);
    expect(mailsTo(smtp, kate)).toEqual([]);
  });

  it("carries a one-click link that, opened in a browser, stops login mail", async () => {
    const rosa = await sys.makeUser("Rosa");
    await ageAccount(rosa);
    await login(rosa);
    await smtp.waitFor(() => mailsTo(smtp, rosa).length > 0);
    const link = unsubscribeLinkOf(mailsTo(smtp, rosa)[0]!);
    expect(link).toContain("/accounts/unsubscribe/login/");
    const res = await fetch(link);
    expect(await res.text()).toContain("and you won't get login emails anymore.");
    await login(rosa);
    await sleep(1500);
    expect(mailsTo(smtp, rosa)).toHaveLength(1);
  });

  it("shows the address the login came from, which the client cannot choose", async () => {
    const mona = await sys.makeUser("Mona");
    await ageAccount(mona);
    // a field named as the gateway's parameter, and a forwarding header the gateway does not trust
    const res = await new ApiClient(sys.baseUrl, null).request(
      "POST",
      "/fetch_api_key",
      { username: mona.email, password: mona.password, remote_addr: "203.0.113.7" },
      "form",
      { "x-forwarded-for": "198.51.100.9" },
    );
    expect(res.status).toBe(200);
    // Zulip's fetch_api_key takes username and password only: anything else is listed as ignored
    expect(res.body.ignored_parameters_unsupported).toEqual(["remote_addr"]);
    await smtp.waitFor(() => mailsTo(smtp, mona).length > 0);
    // the tests reach the gateway on 127.0.0.1 (test/support/system.ts)
    expect(mailsTo(smtp, mona)[0]!.text).toContain("\n\nIP address: 127.0.0.1\n\n");
  });

  it("behind a proxy TRUSTED_PROXIES lists, shows the client address the proxy forwarded, not one the client wrote", async () => {
    const nina = await sys.makeUser("Nina");
    await ageAccount(nina);
    const behindProxy = await sys.startGateway({ TRUSTED_PROXIES: "127.0.0.1" });
    // the proxy (127.0.0.1) appends the address it saw to whatever the client sent
    const res = await new ApiClient(behindProxy, null).request(
      "POST",
      "/fetch_api_key",
      { username: nina.email, password: nina.password },
      "form",
      { "x-forwarded-for": "198.51.100.9, 203.0.113.7" },
    );
    expect(res.status).toBe(200);
    await smtp.waitFor(() => mailsTo(smtp, nina).length > 0);
    expect(mailsTo(smtp, nina)[0]!.text).toContain("\n\nIP address: 203.0.113.7\n\n");
  });

  it("names the browser and operating system of the User-Agent as Zulip does, its own apps as Zulip", async () => {
    const lars = await sys.makeUser("Lars");
    await ageAccount(lars);
    const devices: Array<[userAgent: string, device: string]> = [
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        "Chrome on Windows",
      ],
      ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"],
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        "Safari on macOS",
      ],
      ["ZulipMobile/27.230 (iOS 17.5.1)", "Zulip on iOS"],
      ["ZulipPython/0.9.1 (Debian GNU/Linux; 12)", "Zulip on Debian"],
    ];
    for (const [userAgent, device] of devices) {
      const sent = mailsTo(smtp, lars).length;
      await callContract(new ApiClient(sys.baseUrl, null, undefined, userAgent), identity.fetchApiKey, {
        username: lars.email,
        password: lars.password,
      });
      await smtp.waitFor(() => mailsTo(smtp, lars).length > sent);
      const mail = mailsTo(smtp, lars)[sent]!;
      expect(mail.subject).toBe(`New login from ${device}`);
      expect(mail.text).toContain(`\nDevice: ${device}.\n`);
    }
  });
});
