/**
 * Zulip's missedmessage_hook through the HTTP API, on a private system with a
 * real SMTP server, a local push notification service and short queue
 * timings: a user with an event queue and an active presence is not notified
 * when mentioned; when their last queue is collected (idle past its lifespan,
 * or deleted with DELETE /events) with the message never acknowledged, they
 * are emailed and pushed it once, naming the group whose mention it was. Not
 * when they acknowledged it, read it, or still have another live queue.
 */
import { identity, messaging, notifications } from "@teamchat/shared";
import { addAndroidDevice, awayUser, eventually, mailsTo, pushesTo, sleep } from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startSmtpServer, type TestSmtpServer } from "../../../test/support/smtp";
import { startTestBouncer, type TestBouncer } from "../../../test/support/push-bouncer";
import { startSystem, type TestSystem } from "../../../test/support/system";

/** The sweep runs every half of it; a queue's events stay twice as long. */
const IDLE_SECONDS = 10;
/** The lifespan of the queues left to expire: their messages arrive well within it. */
const LIFESPAN_SECONDS = 6;

let smtp: TestSmtpServer;
let bouncer: TestBouncer;
let sys: TestSystem;
let sender: TestUser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  bouncer = await startTestBouncer();
  sys = await startSystem({
    env: {
      ...bouncer.env,
      SMTP_URL: smtp.url,
      METRICS_PORT: "0",
      EVENT_QUEUE_IDLE_SECONDS: String(IDLE_SECONDS),
    },
  });
  sender = await sys.makeUser("Sender", 400, "Ada Sender");
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await bouncer?.close();
  await smtp?.stop();
});

/** A user mailed after 1 s batches, with an Android device, and no push while online. */
async function userWithDevice(name: string): Promise<TestUser> {
  const user = await awayUser(sys, name, { enable_online_push_notifications: false });
  await addAndroidDevice(sys, user);
  return user;
}

/** On Zulip: an event queue that takes messages (this lifespan) and an active presence; the queue's id. */
async function goOnline(user: TestUser, lifespanSecs = LIFESPAN_SECONDS): Promise<string> {
  const queue = await register(user, lifespanSecs);
  await sys.call(identity.updatePresence, { status: "active" }, user);
  return queue;
}

const register = async (user: TestUser, lifespanSecs: number) =>
  (await sys.call(notifications.registerQueue, { event_types: ["message"], queue_lifespan_secs: lifespanSecs }, user))
    .queue_id as string;

const poll = (user: TestUser, queue: string, lastEventId: number, dontBlock = true) =>
  sys.call(notifications.getEvents, { queue_id: queue, last_event_id: lastEventId, dont_block: dontBlock }, user);

/** Polls (acknowledging nothing) until the message's event is in the queue; its event id. */
async function eventOf(user: TestUser, queue: string, messageId: number): Promise<number> {
  for (;;) {
    const { events } = await poll(user, queue, -1);
    const event = events.find(
      (e) => e.type === "message" && (e as { message: { id: number } }).message.id === messageId,
    );
    if (event) return event.id;
    await sleep(100);
  }
}

describe("when a user's last event queue is collected", () => {
  it("the mention they never fetched is emailed and pushed once; not one they acknowledged, read, or still have a queue for", async () => {
    const [gone, deleter, fetcher, reader, twice] = await Promise.all(
      ["Gone", "Deleter", "Fetcher", "Reader", "Twice"].map(userWithDevice),
    );
    await sys.call(
      messaging.subscribe,
      {
        subscriptions: [{ name: "desk" }],
        principals: [sender, gone, deleter, fetcher, reader, twice].map((u) => u.userId),
      },
      sys.owner,
    );
    const { group_id: oncall } = await sys.call(
      identity.createUserGroup,
      { name: "oncall", description: "", members: [gone.userId] },
      sys.owner,
    );
    const [, deleterQueue] = await Promise.all([gone, deleter, reader, twice].map((u) => goOnline(u)));
    // a second queue that outlives the test
    await register(twice, 600);
    // a long life: what its client acknowledges is not yet written to the queue's document when it goes
    const fetcherQueue = await goOnline(fetcher, 600);
    const { id } = await sys.call(
      messaging.sendMessage,
      {
        type: "stream",
        to: "desk",
        topic: "pager",
        content:
          "@*oncall* @**Deleter Person** @**Fetcher Person** @**Reader Person** @**Twice Person** the pager went off",
      },
      sender,
    );

    // the fetcher's client acknowledges the message and deletes its queue
    await poll(fetcher, fetcherQueue, await eventOf(fetcher, fetcherQueue, id));
    await sys.call(notifications.deleteQueue, { queue_id: fetcherQueue }, fetcher);
    // the reader reads it elsewhere before the queue is collected
    await sys.call(messaging.updateMessageFlags, { messages: [id], op: "add", flag: "read" }, reader);
    // the deleter's client was given the message but never acknowledged it, and deletes its queue
    await eventOf(deleter, deleterQueue!, id);
    expect(await sys.call(notifications.deleteQueue, { queue_id: deleterQueue! }, deleter)).toEqual({
      result: "success",
      msg: "",
    });
    await smtp.waitFor(() => mailsTo(smtp, deleter).length > 0, 20_000);
    // present when the message came: nothing until the queue is gone
    expect(mailsTo(smtp, gone)).toEqual([]);
    expect(pushesTo(bouncer, gone)).toEqual([]);

    await smtp.waitFor(() => mailsTo(smtp, gone).length > 0, 20_000);
    const [toGone] = await eventually(
      () => pushesTo(bouncer, gone),
      (p) => p.length > 0,
      20_000,
    );
    expect(toGone).toMatchObject({
      event: "message",
      zulip_message_id: id,
      mentioned_user_group_id: oncall,
      mentioned_user_group_name: "oncall",
    });
    // the other queues left to expire are collected by now (same lifespan, or shorter)
    await sleep(3000);
    expect(mailsTo(smtp, gone).map((m) => [m.subject, m.text.includes("because @oncall was mentioned.")])).toEqual([
      ["#desk > pager", true],
    ]);
    expect(pushesTo(bouncer, gone)).toHaveLength(1);
    expect(mailsTo(smtp, deleter).map((m) => m.subject)).toEqual(["#desk > pager"]);
    expect(mailsTo(smtp, deleter)[0]!.text).toContain("You are receiving this because you were personally mentioned.");
    expect(pushesTo(bouncer, deleter)).toMatchObject([{ event: "message", zulip_message_id: id }]);
    // emails and pushes of the fetcher, the reader and the user with a live queue
    expect([fetcher, reader, twice].map((u) => [mailsTo(smtp, u).length, pushesTo(bouncer, u).length])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  }, 60_000);

  it("a user whose client keeps polling is not taken for idle once the queue's first lifespan has passed", async () => {
    const poller = await userWithDevice("Poller");
    // a new channel: no direct message from Notification Bot, as joining an existing one brings
    await sys.call(
      messaging.subscribe,
      { subscriptions: [{ name: "watch" }], principals: [sender.userId, poller.userId] },
      sys.owner,
    );
    // every queue of the organization is read for fan-out when the presence event goes out, this one as made
    const queue = await goOnline(poller, 2);
    // a long-poll keeps the queue for its lifespan after the wait: the visit is written, the list is not
    const parked = poll(poller, queue, -1, false);
    await sleep(3000);
    const { id } = await sys.call(
      messaging.sendMessage,
      { type: "stream", to: "watch", topic: "pager", content: "@**Poller Person** are you there?" },
      sender,
    );
    const { events } = await parked;
    const event = events.find((e) => e.type === "message")!;
    expect((event as { message: { id: number } }).message.id).toBe(id);
    // the client acknowledges it and parks again, as Zulip's clients do
    const next = poll(poller, queue, event.id, false);
    // well past the mail batches' second
    await sleep(3000);
    expect([mailsTo(smtp, poller), pushesTo(bouncer, poller)]).toEqual([[], []]);
    await sys.call(notifications.deleteQueue, { queue_id: queue }, poller);
    await next;
  }, 30_000);
});
