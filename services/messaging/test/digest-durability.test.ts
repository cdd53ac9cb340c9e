/**
 * The weekly digest survives the death of the messaging instance that was
 * mailing it: the queued item, refused by a failing mail server and held for
 * its back-off, goes to the instance started after, which mails it once.
 */
import { identity, messaging, realmConfig } from "@teamchat/shared";
import { startSmtpServer, type TestSmtpServer } from "../../../test/support/smtp";
import { startSystem, type TestSystem } from "../../../test/support/system";

let smtp: TestSmtpServer;
let sys: TestSystem;
beforeAll(async () => {
  smtp = await startSmtpServer();
  sys = await startSystem({ env: { SMTP_URL: smtp.url, DIGEST_CHECK_INTERVAL_SECONDS: "1" } });
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await smtp?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a digest whose instance died is mailed once by the next one", async () => {
  const away = await sys.makeUser("Away", 400, "Ava Away");
  const writer = await sys.makeUser("Writer", 400, "Will Writer");
  // only these two want digests: one mail to follow
  await sys.call(identity.updateSettings, { enable_digest_emails: false } as never, sys.owner);
  await sys.call(identity.updateSettings, { enable_digest_emails: false } as never, writer);
  await sys.call(
    messaging.subscribe,
    { subscriptions: [{ name: "news" }], principals: [away.userId, writer.userId] },
    sys.owner,
  );
  await sys.call(
    messaging.sendMessage,
    { type: "stream", to: "news", topic: "release", content: "Version 2 is out." },
    writer,
  );
  smtp.refuseNext(1000);
  const today = (new Date().getUTCDay() + 6) % 7;
  await sys.call(realmConfig.updateRealm, { digest_emails_enabled: true, digest_weekday: today }, sys.owner);
  const deadline = Date.now() + 20_000;
  while (smtp.refused === 0 && Date.now() < deadline) await sleep(100);
  expect(smtp.refused).toBeGreaterThan(0);

  await sys.killService("messaging");
  smtp.refuseNext(0);
  await sys.startService("messaging");
  await smtp.waitFor((mails) => mails.length > 0, 30_000);
  await sleep(3000);
  expect(smtp.received.map((m) => [m.to, m.subject])).toEqual([[[away.email], "Zulip digest for Test Organization"]]);
  expect(smtp.received[0]!.text).toContain("#news > release\nWill Writer:\n> Version 2 is out.\n");
});
