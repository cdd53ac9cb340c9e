/**
 * The weekly digest email through the HTTP API, on a private system whose
 * mail goes to a real SMTP server started here and which looks for the digest
 * day every second (DIGEST_CHECK_INTERVAL_SECONDS), with two messaging
 * instances: once the organization turns digests on for today's weekday, an
 * inactive user is mailed Zulip's digest (hot conversations, new channels)
 * once; a user with enable_digest_emails off, an active user and a bot get
 * nothing; a user hiding message content gets counts only; a private channel
 * with protected history shows only what the user received. The mail server
 * refuses the first digest: it is sent again after a back-off, still once.
 */
import { identity, messaging, realmConfig } from "@teamchat/shared";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from "../../../test/support/smtp";
import { startSystem, type TestSystem } from "../../../test/support/system";

let smtp: TestSmtpServer;
let sys: TestSystem;
let ada: TestUser;
let ben: TestUser;
let cy: TestUser;
let reader: TestUser;
let hider: TestUser;
let optedOut: TestUser;
let active: TestUser;
let late: TestUser;
let botEmail: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mailsTo = (email: string): ReceivedMail[] => smtp.received.filter((m) => m.to.includes(email));
const post = (from: TestUser, topic: string, content: string, channel = "design") =>
  sys.call(messaging.sendMessage, { type: "stream", to: channel, topic, content }, from);

beforeAll(async () => {
  smtp = await startSmtpServer();
  sys = await startSystem({ env: { SMTP_URL: smtp.url, DIGEST_CHECK_INTERVAL_SECONDS: "1" } });
  // a second instance checks and consumes too: the digest must still go out once
  await sys.startService("messaging");
  ada = await sys.makeUser("Ada", 400, "Ada Lovelace");
  ben = await sys.makeUser("Ben", 400, "Ben Franklin");
  cy = await sys.makeUser("Cy", 400, "Cy Young");
  reader = await sys.makeUser("Reader", 400, "Rita Reader");
  hider = await sys.makeUser("Hider", 400, "Hal Hider");
  optedOut = await sys.makeUser("Optout", 400, "Olga Optout");
  active = await sys.makeUser("Active", 400, "Abe Active");
  const bot = await sys.call(identity.createBot, { full_name: "Digest Bot", short_name: "digest" }, sys.owner);
  botEmail = (await sys.call(identity.getUser, { user_id: bot.user_id }, sys.owner)).user.email;
  await sys.call(identity.updateSettings, { message_content_in_email_notifications: false } as never, hider);
  await sys.call(identity.updateSettings, { enable_digest_emails: false } as never, optedOut);
  await sys.call(
    messaging.subscribe,
    {
      subscriptions: [{ name: "design" }],
      principals: [ada, ben, cy, reader, hider, optedOut, active].map((u) => u.userId).concat(bot.user_id),
    },
    sys.owner,
  );
  // launch: three people (the most diverse); lunch: two; bugs: five messages by one (the longest); then misc, tiny
  await post(ada, "launch", "Launch is on Friday.");
  await post(ben, "launch", "I will write the notes.\nSecond line.");
  await post(cy, "launch", "Count me in.");
  await post(ada, "lunch", "Pizza?");
  await post(ben, "lunch", "Sure.");
  for (let i = 1; i <= 5; i++) await post(ada, "bugs", `Bug ${i} fixed.`);
  await post(ada, "misc", "A thought.");
  await post(ben, "tiny", "Hi.");
  // a private channel whose history later subscribers do not see
  late = await sys.makeUser("Late", 400, "Lee Late");
  await sys.call(
    messaging.subscribe,
    { subscriptions: [{ name: "secret" }], invite_only: true, history_public_to_subscribers: false },
    ada,
  );
  await post(ada, "plan", "The secret plan.", "secret");
  await sys.call(messaging.subscribe, { subscriptions: [{ name: "secret" }], principals: [late.userId] }, ada);
  await post(ada, "plan", "After you joined.", "secret");
  await sys.call(identity.updatePresence, { status: "active" }, active);
  smtp.refuseNext(1);
  const today = (new Date().getUTCDay() + 6) % 7;
  await sys.call(realmConfig.updateRealm, { digest_emails_enabled: true, digest_weekday: today }, sys.owner);
  await smtp.waitFor(() => mailsTo(reader.email).length > 0 && mailsTo(hider.email).length > 0, 20_000);
  // many more checks by both instances, and any redelivery, have had their chance
  await sleep(3000);
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await smtp?.stop();
});

it("an inactive user gets one digest: Zulip's subject, the four hot conversations and the new channels", async () => {
  expect(mailsTo(reader.email)).toHaveLength(1);
  const [mail] = mailsTo(reader.email);
  expect(mail!.subject).toBe("Zulip digest for Test Organization");
  expect(mail!.from).toBe("noreply@localhost");
  const { streams } = await sys.call(messaging.getStreams, {}, reader);
  const channels = streams
    .filter((s) => !s.invite_only)
    .sort((a, b) => a.stream_id - b.stream_id)
    .map((s) => s.name);
  const names = channels.length === 1 ? channels[0] : `${channels.slice(0, -1).join(", ")} and ${channels.at(-1)}`;
  const lines = mail!.text.trimEnd().split("\n");
  // the last line is the user's one-click link
  expect(lines.at(-1)).toMatch(/^http:\/\/localhost\/accounts\/unsubscribe\/digest\/[0-9a-f]{24}$/);
  expect(lines.slice(0, -1).join("\n")).toBe(
    [
      "#design > launch",
      "Ada Lovelace:",
      "> Launch is on Friday.",
      "Ben Franklin:",
      "> I will write the notes.",
      "> Second line.",
      "+ 1 more message by Ada Lovelace, Ben Franklin and Cy Young.",
      "",
      "#design > lunch",
      "Ada Lovelace:",
      "> Pizza?",
      "Ben Franklin:",
      "> Sure.",
      "",
      "#design > bugs",
      "Ada Lovelace:",
      "> Bug 1 fixed.",
      "> Bug 2 fixed.",
      "+ 3 more messages by Ada Lovelace.",
      "",
      "#design > misc",
      "Ada Lovelace:",
      "> A thought.",
      "",
      "** New channels **",
      `    ${names}.`,
      "",
      "Log in to Zulip to catch up: http://localhost.",
      "",
      "--",
      "Manage email preferences:",
      "",
      "http://localhost/#settings/notifications",
      "",
      "Unsubscribe from digest emails:",
      "",
    ].join("\n"),
  );
  expect(mail!.html).toContain(`<div class="hot_convo_recipient_header"><a href='http://localhost/#narrow/channel/`);
  expect(mail!.html).toContain("<p><b>Ada Lovelace</b>: Launch is on Friday.</p>");
  expect(mail!.html).toContain("+ 3 more messages by Ada Lovelace.");
  expect(mail!.html).not.toContain("tiny");
});

it("a user who hides message content gets the counts only", async () => {
  expect(mailsTo(hider.email)).toHaveLength(1);
  const [mail] = mailsTo(hider.email);
  const { streams } = await sys.call(messaging.getStreams, {}, hider);
  const newChannels = streams.filter((s) => !s.invite_only).length;
  // the twelve messages of #design; the bots' notices of subscriptions are not counted
  expect(mail!.text).toContain(
    `You have 12 new messages, and there are ${newChannels} new channels in Test Organization.`,
  );
  expect(mail!.text).toContain(
    "This email does not include message content because you have chosen to hide message content in email notifications.",
  );
  expect(mail!.text).not.toContain("Launch is on Friday.");
});

it("a channel with protected history: only the messages the user received", () => {
  expect(mailsTo(late.email)).toHaveLength(1);
  const [mail] = mailsTo(late.email);
  expect(mail!.text).toContain("#secret > plan\nAda Lovelace:\n> After you joined.\n");
  expect(mail!.text).not.toContain("The secret plan.");
  // and a private channel is no new channel to those outside it
  expect(mailsTo(reader.email)[0]!.text).not.toContain("secret");
});

it("a digest the mail server refused is sent again, once", () => {
  expect(smtp.refused).toBe(1);
  // every inactive user with digests on was mailed once, the refused one too
  const recipients = smtp.received.flatMap((m) => m.to).sort();
  expect(recipients).toEqual([sys.owner, ada, ben, cy, reader, hider, late].map((u) => u.email).sort());
});

it("no digest with enable_digest_emails off, for an active user, or for a bot", () => {
  expect(mailsTo(optedOut.email)).toEqual([]);
  expect(mailsTo(active.email)).toEqual([]);
  expect(mailsTo(botEmail)).toEqual([]);
  // the senders, inactive too, got theirs: one each
  for (const user of [ada, ben, cy]) expect(mailsTo(user.email)).toHaveLength(1);
});
