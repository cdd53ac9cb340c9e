/**
 * What a user's missed-message email batch costs messaging's database, read
 * from its /metrics on a private system whose mail goes to a real SMTP
 * server: the documents written for a batch of N unread messages and of 2N
 * (the items are written when stored, never once per user), a batch whose
 * messages were all read since reads none of its items; a work item
 * delivered again, before or after its user's batch is mailed, is mailed
 * once, as is a batch tried again after some of its emails went; what the
 * version before stored is mailed as it would have. Items for users who
 * batch a minute or more are stored in rounds of seconds, one row per user,
 * and an instance that stops stores what its waiting round took.
 */
import { randomUUID } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { Msg } from "@nats-io/transport-node";
import { mongo } from "mongoose";
import { identity, messaging, notifications } from "@teamchat/shared";
import {
  awayUser,
  eventually,
  mailsTo,
  postToChannel,
  sleep,
  subscribeToChannel,
} from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type TestSmtpServer } from "../../../test/support/smtp";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { messagingDatabaseOf } from "./helpers";

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

const ITEMS = "missed_message_email_notices";
const PENDING = "missed_message_email_pending";
const BATCHES = "missed_message_email_batches";
const WRITTEN = "teamchat_db_documents_written_total";
const RETURNED = "teamchat_db_documents_returned_total";

/** One scrape of messaging's counters: each series's value by its name and labels as printed. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await fetch(`${sys.metricsUrls("messaging")[0]}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    const sample = /^(\w+\{.*\}) (\S+)$/.exec(line);
    if (sample) samples.set(sample[1]!, Number(sample[2]));
  }
  return samples;
}

/** How much a counter grew between two scrapes, over its series that carry these labels. */
const grewBy = (before: Map<string, number>, after: Map<string, number>, metric: string, labels: string[]) =>
  [...after]
    .filter(([key]) => key.startsWith(`${metric}{`) && labels.every((label) => key.includes(label)))
    .reduce((sum, [key, value]) => sum + value - (before.get(key) ?? 0), 0);

/** How much a database counter grew on `collection`, over every command or one. */
const grew = (
  before: Map<string, number>,
  after: Map<string, number>,
  metric: string,
  collection: string,
  command?: string,
) => grewBy(before, after, metric, [`collection="${collection}"`, ...(command ? [`command="${command}"`] : [])]);

/** Scrapes until `done` holds. */
async function scrapeUntil(done: (now: Map<string, number>) => boolean): Promise<Map<string, number>> {
  const now = await eventually(scrape, done);
  if (!done(now)) throw new Error("messaging's metrics never showed what was expected");
  return now;
}

const dm = async (to: TestUser, content: string) =>
  (await sys.call(messaging.sendMessage, { type: "direct", to: [to.userId], content }, sender)).id;

/** Seconds a batch waits: long enough to scrape between its messages' store and its mailing. */
const BATCH_SECONDS = 4;

/**
 * A user's batch of `count` direct messages from one sender (one email): the
 * documents the mailer wrote in each of its collections from the messages'
 * store to the batch's release, and the rows their store added.
 */
async function batchOf(name: string, count: number) {
  const user = await awayUser(sys, name, { email_notifications_batching_period_seconds: BATCH_SECONDS });
  const start = await scrape();
  // sent together, so that their items are stored in one round (or two) of 200 ms
  await Promise.all(Array.from({ length: count }, (_, i) => dm(user, `message ${i + 1}`)));
  await scrapeUntil(
    (now) => grew(start, now, WRITTEN, ITEMS, "insert") >= count && grew(start, now, WRITTEN, BATCHES, "insert") >= 1,
  );
  // the last round's writes, if the messages took two
  await sleep(500);
  const stored = await scrape();
  await smtp.waitFor(() => mailsTo(smtp, user).length > 0);
  const released = await scrapeUntil((now) => grew(stored, now, WRITTEN, BATCHES, "delete") >= 1);
  expect(mailsTo(smtp, user)).toHaveLength(1);
  expect(mailsTo(smtp, user)[0]!.text).toContain(`message ${count}`);
  return {
    rows: grew(start, stored, WRITTEN, PENDING, "insert"),
    written: {
      [ITEMS]: grew(stored, released, WRITTEN, ITEMS),
      [PENDING]: grew(stored, released, WRITTEN, PENDING),
      [BATCHES]: grew(stored, released, WRITTEN, BATCHES),
    },
  };
}

describe("a user's batch", () => {
  it("lists the messages of several seconds in one row when its user batches for a minute or more", async () => {
    // Zulip's default batching period: the rounds that store its items wait seconds, not 200 ms
    const user = await awayUser(sys, "Petra", { email_notifications_batching_period_seconds: 120 });
    const start = await scrape();
    for (const i of [1, 2, 3]) {
      await dm(user, `patient ${i}`);
      await sleep(1000);
    }
    const stored = await scrapeUntil((now) => grew(start, now, WRITTEN, ITEMS, "insert") >= 3);
    expect(grew(start, stored, WRITTEN, PENDING, "insert")).toBe(1);
    const conn = await messagingDatabaseOf(sys);
    try {
      const rows = await conn.db!.collection(PENDING).find({ userId: user.userId }).toArray();
      expect(rows.map((row) => (row.notices as unknown[]).length)).toEqual([3]);
    } finally {
      await conn.close();
    }
  });

  it("writes the same documents for 2N messages as for N: none of the items, the rows listing them, the batch", async () => {
    const n = await batchOf("Nadia", 5);
    const twice = await batchOf("Noor", 10);
    for (const { rows, written } of [n, twice]) {
      // its lease and its removal; the rows its messages' stores added (a row per round, not per message)
      expect(written).toEqual({ [ITEMS]: 0, [PENDING]: rows, [BATCHES]: 2 });
    }
  });

  it("of messages all read since mails nothing and reads none of its items", async () => {
    const rhea = await awayUser(sys, "Rhea", { email_notifications_batching_period_seconds: 3 });
    await subscribeToChannel(sys, "reading", [sender, rhea]);
    const start = await scrape();
    const ids = [
      await dm(rhea, "read me"),
      await postToChannel(sys, sender, "reading", "news", "@**Rhea Person** read this too"),
    ];
    await scrapeUntil((now) => grew(start, now, WRITTEN, ITEMS, "insert") >= 2);
    await sys.call(messaging.updateMessageFlags, { messages: ids, op: "add", flag: "read" }, rhea);
    const read = await scrape();
    const released = await scrapeUntil((now) => grew(read, now, WRITTEN, BATCHES, "delete") >= 1);
    expect(grew(read, released, RETURNED, ITEMS)).toBe(0);
    expect(mailsTo(smtp, rhea)).toEqual([]);
  });
});

describe("a work item delivered again", () => {
  it("before and after its user's batch is mailed: one email", async () => {
    const ravi = await awayUser(sys, "Ravi", { email_notifications_batching_period_seconds: 3 });
    // the item as the decision queues it, seen on its subject
    const queued = sys.nc.subscribe(notifications.notificationWorkSubjects.email);
    const itemOf = (async (): Promise<Msg> => {
      for await (const m of queued) {
        const item = m.json<notifications.MissedMessageEmailNotices>();
        if (item.users.some((u) => u.userId === ravi.userId)) return m;
      }
      throw new Error("the item was never queued");
    })();
    // the stream takes an item under the same id again once its duplicate window is over, as JetStream
    // delivers again an item whose acknowledgement was lost
    const jsm = await jetstreamManager(sys.nc);
    const { config } = await jsm.streams.info(notifications.NOTIFICATION_WORK_STREAM);
    await jsm.streams.update(notifications.NOTIFICATION_WORK_STREAM, { ...config, duplicate_window: 1e9 });
    /** the items the mailer took and stored */
    const handled = (since: Map<string, number>, now: Map<string, number>) =>
      grewBy(since, now, "teamchat_notification_work_handled_total", ['consumer="notification-email"', 'outcome="ok"']);
    const begin = await scrape();
    await dm(ravi, "only once");
    const item = await itemOf;
    queued.unsubscribe();
    const start = await scrapeUntil((now) => handled(begin, now) >= 1);
    const deliverAgain = async () => {
      await sleep(1100);
      const ack = await jetstream(sys.nc).publish(item.subject, item.data, {
        msgID: item.headers!.get("Nats-Msg-Id"),
      });
      expect(ack.duplicate).toBe(false);
    };

    // again before the batch is due (3 s after the first store)
    await deliverAgain();
    await smtp.waitFor(() => mailsTo(smtp, ravi).length > 0);
    const mailed = await scrapeUntil((now) => grew(start, now, WRITTEN, BATCHES, "delete") >= 1);
    // and after: the copy's own batch, due a period later, is released without a mail
    await deliverAgain();
    const released = await scrapeUntil((now) => grew(mailed, now, WRITTEN, BATCHES, "delete") >= 1);
    expect(handled(start, released)).toBe(2);
    await sleep(500);
    expect(mailsTo(smtp, ravi)).toHaveLength(1);
    expect(mailsTo(smtp, ravi)[0]!.text).toContain("Ada Sender: only once");
  });
});

describe("a batch that fails after some of its emails", () => {
  it("sends only the others when tried again", async () => {
    const olga = await awayUser(sys, "Olga", { email_notifications_batching_period_seconds: 2 });
    const otto = await sys.makeUser("Otto", 400, "Otto Other");
    await dm(olga, "from Ada");
    await sys.call(messaging.sendMessage, { type: "direct", to: [olga.userId], content: "from Otto" }, otto);
    // the batch's first email taken, its second refused: tried again after a back-off
    const refused = smtp.refused;
    smtp.refuseNext(1, 1);
    await smtp.waitFor(() => mailsTo(smtp, olga).length >= 2, 15_000);
    await sleep(2000);
    expect(smtp.refused).toBe(refused + 1);
    expect(
      mailsTo(smtp, olga)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(["DMs with Ada Sender", "DMs with Otto Other"]);
  });
});

describe("what the version before stored", () => {
  it("is mailed: its rows' items the user is still pending on, once", async () => {
    // messages that queue no email, stored below as the version before stored their items
    const lena = await awayUser(sys, "Lena", { enable_offline_email_notifications: false });
    const pendingId = await dm(lena, "stored before the upgrade");
    const doneId = await dm(lena, "mailed before the upgrade");
    await sys.call(identity.updateSettings, { enable_offline_email_notifications: true } as never, lena);
    const realmId = sys.realm.id;
    const item = (id: number, content: string, pendingUserIds: number[]) => ({
      _id: `email:${realmId}:${id}`,
      realmId,
      message: {
        id,
        senderId: sender.userId,
        senderFullName: sender.fullName,
        senderEmail: sender.email,
        type: "private",
        directRecipientIds: [sender.userId, lena.userId],
        content,
        renderedContent: `<p>${content}</p>`,
        dateSent: Math.floor(Date.now() / 1000),
      },
      users: [{ userId: lena.userId, trigger: "private_message", batchingSeconds: 1 }],
      pendingUserIds,
      storedAt: new Date(),
    });
    /** a document as the version before wrote it */
    type Stored = { _id: string } & Record<string, unknown>;
    const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
    try {
      const db = client.db(`${sys.config.MONGO_DB_PREFIX}_messaging`);
      await db
        .collection<Stored>(ITEMS)
        .insertMany([
          item(pendingId, "stored before the upgrade", [lena.userId]),
          item(doneId, "mailed before the upgrade", []),
        ]);
      await db.collection<Stored>(PENDING).insertOne({
        _id: `${realmId}:${lena.userId}:${randomUUID()}`,
        realmId,
        userId: lena.userId,
        itemIds: [`email:${realmId}:${pendingId}`, `email:${realmId}:${doneId}`],
      });
      await db.collection<Stored>(BATCHES).insertOne({
        _id: `${realmId}:${lena.userId}`,
        realmId,
        userId: lena.userId,
        scheduledAt: new Date(),
        leaseUntil: new Date(0),
        failures: 0,
        retryAt: new Date(0),
      });
    } finally {
      await client.close();
    }
    await smtp.waitFor(() => mailsTo(smtp, lena).length > 0);
    await sleep(1500);
    expect(mailsTo(smtp, lena)).toHaveLength(1);
    expect(mailsTo(smtp, lena)[0]!.text).toContain("Ada Sender: stored before the upgrade");
    expect(mailsTo(smtp, lena)[0]!.text).not.toContain("mailed before the upgrade");
  });
});

describe("a stopping instance", () => {
  it("stores the items its waiting round took, rather than handing them back", async () => {
    const user = await awayUser(sys, "Stella", { email_notifications_batching_period_seconds: 120 });
    await dm(user, "taken before the stop");
    // the item reaches messaging's round, which waits seconds before storing it
    await sleep(1500);
    await sys.stopService("messaging");
    const conn = await messagingDatabaseOf(sys);
    try {
      expect(await conn.db!.collection(PENDING).countDocuments({ userId: user.userId })).toBe(1);
    } finally {
      await conn.close();
      await sys.startService("messaging");
    }
  });
});
