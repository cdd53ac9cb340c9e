/**
 * Push notices with a push notification service configured (a private
 * system): a direct message to a user is queued on notify.push while they are
 * away, and while online with enable_online_push_notifications; not without
 * it; reading the message elsewhere or deleting it queues its removal
 * (notify.push-removal). Seen through notifications' record of what was
 * pushed (Zulip's active_mobile_push_notification), the metrics, and what a
 * local push notification service receives from identity for a device
 * registered with a token.
 */
import { mongo } from "mongoose";
import { identity, messaging, notifications, realmConfig } from "@teamchat/shared";
import { eventually, sleep } from "../../../test/support/notified";
import type { TestUser } from "../../../test/support/organization";
import { startTestBouncer, type TestBouncer } from "../../../test/support/push-bouncer";
import { startSystem, type TestSystem } from "../../../test/support/system";

let bouncer: TestBouncer;
let sys: TestSystem;
let sender: TestUser;
let db: mongo.MongoClient;
beforeAll(async () => {
  bouncer = await startTestBouncer();
  sys = await startSystem({ env: { ...bouncer.env, METRICS_PORT: "0" } });
  sender = await sys.makeUser("Sender");
  db = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await sys?.stop();
  await bouncer?.close();
});

/** The messages notifications recorded as pushed to `user`. */
const pushed = async (user: TestUser): Promise<number[]> =>
  (
    await db
      .db(`${sys.config.MONGO_DB_PREFIX}_notifications`)
      .collection("push_notified_messages")
      .find({ realmId: sys.realm.id, userId: user.userId })
      .toArray()
  ).map((r) => r.messageId as number);

const published = async (kind: string): Promise<number> => {
  const text = await (await fetch(`${sys.metricsUrls("notifications")[0]}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("teamchat_notification_work_published_total{") && l.includes(`kind="${kind}"`));
  return line ? Number(line.split(" ").at(-1)) : 0;
};

const dm = async (to: TestUser, content: string) =>
  (await sys.call(messaging.sendMessage, { type: "direct", to: [to.userId], content }, sender)).id;

describe("push notices", () => {
  it("while away, and while online with online push; withdrawn once read", async () => {
    const away = await sys.makeUser("Away");
    const online = await sys.makeUser("Online");
    const onlineNoPush = await sys.makeUser("NoPush");
    await sys.call(identity.updateSettings, { enable_online_push_notifications: false } as never, onlineNoPush);
    for (const u of [online, onlineNoPush]) {
      await sys.call(notifications.registerQueue, { event_types: ["message"] }, u);
      await sys.call(identity.updatePresence, { status: "active" }, u);
    }
    await sys.call(identity.addAndroidRegId, { token: "fcm-token-of-away" }, away);
    const toAway = await dm(away, "hello away");
    const toOnline = await dm(online, "hello online");
    await dm(onlineNoPush, "hello quiet");
    expect(
      await eventually(
        () => pushed(away),
        (ids) => ids.length > 0,
      ),
    ).toEqual([toAway]);
    expect(
      await eventually(
        () => pushed(online),
        (ids) => ids.length > 0,
      ),
    ).toEqual([toOnline]);
    await sleep(500);
    expect(await pushed(onlineNoPush)).toEqual([]);
    expect(await published("push")).toBeGreaterThanOrEqual(2);
    // the away user's device gets it through the push notification service
    const [notice] = await bouncer.waitFor("push/notify");
    expect(notice).toMatchObject({
      user_id: away.userId,
      gcm_payload: { event: "message", zulip_message_id: toAway, content: "hello away" },
    });

    const removalsBefore = await published("pushRemoval");
    await sys.call(messaging.updateMessageFlags, { messages: [toAway], op: "add", flag: "read" }, away);
    expect(
      await eventually(
        () => pushed(away),
        (ids) => ids.length === 0,
      ),
    ).toEqual([]);
    expect(await published("pushRemoval")).toBe(removalsBefore + 1);
    const [, removal] = await bouncer.waitFor("push/notify", 2);
    expect(removal).toMatchObject({
      user_id: away.userId,
      gcm_payload: { event: "remove", zulip_message_ids: String(toAway) },
    });
  });

  it("withdrawn when the message is deleted", async () => {
    const user = await sys.makeUser("Deleted");
    const id = await dm(user, "soon gone");
    await eventually(
      () => pushed(user),
      (ids) => ids.length > 0,
    );
    const removalsBefore = await published("pushRemoval");
    await sys.call(messaging.deleteMessage, { message_id: id }, sender);
    expect(
      await eventually(
        () => pushed(user),
        (ids) => ids.length === 0,
      ),
    ).toEqual([]);
    expect(await published("pushRemoval")).toBe(removalsBefore + 1);
  });

  it("a channel message that mentions nobody: to those whose own or channel push settings ask, as they change", async () => {
    const own = await sys.makeUser("OwnPush");
    const channelPush = await sys.makeUser("ChannelPush");
    const plain = await sys.makeUser("PlainPush");
    await sys.call(
      messaging.subscribe,
      {
        subscriptions: [{ name: "pushed" }],
        principals: [sender, own, channelPush, plain].map((u) => u.userId),
        send_new_subscription_messages: false,
      },
      sys.owner,
    );
    const { stream_id } = await sys.call(messaging.getStreamId, { stream: "pushed" }, plain);
    const post = async (content: string) =>
      (await sys.call(messaging.sendMessage, { type: "stream", to: "pushed", topic: "t", content }, sender)).id;
    // pushed to nobody; then one user turns every channel's push on, another this channel's
    const first = await post("first");
    await sys.call(identity.updateSettings, { enable_stream_push_notifications: true } as never, own);
    await sys.call(
      messaging.updateSubscriptionProperties,
      { subscription_data: [{ stream_id, property: "push_notifications", value: true }] },
      channelPush,
    );
    const second = await post("second");
    for (const user of [own, channelPush]) {
      expect(
        await eventually(
          () => pushed(user),
          (ids) => ids.length > 0,
        ),
      ).toEqual([second]);
    }
    await sleep(500);
    expect(await pushed(plain)).toEqual([]);
    expect(first).toBeLessThan(second);
  });

  it("never for Welcome Bot's messages (Zulip's disable_external_notifications)", async () => {
    await sys.call(realmConfig.updateRealm, { welcome_message_custom_text: "Read the guidelines." }, sys.owner);
    try {
      // created away, so Welcome Bot's custom message would be pushed, were it not for the rule
      const newcomer = await sys.makeUser("Newcomer");
      const id = await dm(newcomer, "hello newcomer");
      // notices are decided in message order: the later one's push means the earlier one was decided
      expect(
        await eventually(
          () => pushed(newcomer),
          (ids) => ids.length > 0,
        ),
      ).toEqual([id]);
    } finally {
      await sys.call(realmConfig.updateRealm, { welcome_message_custom_text: "" }, sys.owner);
    }
  });
});
