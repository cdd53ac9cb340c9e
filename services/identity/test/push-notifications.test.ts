/**
 * Mobile push through Zulip's push notification service protocol, against a
 * local bouncer (test/support/push-bouncer.ts): legacy tokens registered
 * there, E2EE registrations forwarded and made active, missed-message notices
 * from the NOTIFICATION_WORK stream sent both ways (the legacy APNs / FCM
 * payloads, and data the test device decrypts), once even when delivered
 * again or held by another try, removals of what was sent, test
 * notifications, and a failing bouncer retried with backoff and counted in
 * the metrics.
 */
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { mongo } from "mongoose";
import { identity, notifications } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { counterSum, metricsText } from "../../../test/support/metrics";
import type { TestUser } from "../../../test/support/organization";
import {
  makeTestDevice,
  startTestBouncer,
  type TestBouncer,
  type TestDevice,
} from "../../../test/support/push-bouncer";
import { startSystem, type TestSystem } from "../../../test/support/system";

let bouncer: TestBouncer;
let sys: TestSystem;
let member: TestUser, sender: TestUser;
beforeAll(async () => {
  bouncer = await startTestBouncer();
  sys = await startSystem({ env: { ...bouncer.env, METRICS_PORT: "0" } });
  member = await sys.makeUser("Mobile", 400, "Mo Bile");
  sender = await sys.makeUser("Sender", 400, "Sue Sender");
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await bouncer?.close();
});

const success = { result: "success", msg: "" };
const APNS_TOKEN = "c0ffee00".repeat(8);
const FCM_TOKEN = "fcm-registration-token";
const APP_ID = "org.zulip.Zulip";

const pushDevices = async (user: TestUser) =>
  (
    (await sys.call(notifications.registerQueue, { fetch_event_types: ["push_device"] }, user)) as unknown as {
      push_devices: Record<string, { status: string; error_code: string | null }>;
    }
  ).push_devices;

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} never happened`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Registers an E2EE device as the mobile app does, and waits until the bouncer made it active. */
async function registerE2eeDevice(user: TestUser, pushAccountId: number, token: string): Promise<TestDevice> {
  const device = await makeTestDevice();
  expect(
    await sys.call(
      identity.registerPushDevice,
      {
        token_kind: "fcm",
        push_account_id: pushAccountId,
        push_public_key: device.pushPublicKey,
        bouncer_public_key: bouncer.publicKey,
        encrypted_push_registration: bouncer.sealRegistration({ token, token_kind: "fcm" }),
      },
      user,
    ),
  ).toEqual(success);
  await until(
    async () => ((await pushDevices(user))[`${pushAccountId}`]?.status === "active" ? true : undefined),
    "the registration's activation",
  );
  return device;
}

const publish = (subject: string, notice: unknown, msgID = randomUUID()) =>
  jetstream(sys.nc).publish(subject, JSON.stringify(notice), { msgID });

/** A user's notice as the decision queues it: its message's push item, listing that user. */
const publishPush = ({ realmId, message, ...user }: notifications.MissedMessageNotice) =>
  publish(notifications.notificationWorkSubjects.push, { realmId, message, users: [user] });

let nextMessageId = 5000;
const channelNotice = (user: TestUser, extra: Partial<notifications.MissedMessageNotice> = {}) => ({
  realmId: sys.realm.id,
  userId: user.userId,
  trigger: "mentioned" as const,
  message: {
    id: nextMessageId++,
    senderId: sender.userId,
    senderFullName: sender.fullName,
    senderEmail: sender.email,
    type: "stream" as const,
    channelId: 7,
    channelName: "Denmark",
    topic: "plans",
    content: "@**Mo Bile** see **this** & that",
    renderedContent:
      '<p><span class="user-mention" data-user-id="3">@Mo Bile</span> see <strong>this</strong> &amp; that</p>',
    dateSent: 1754385395,
  },
  ...extra,
});

const identityMetrics = () => metricsText(sys, "identity");

let e2eeDevice: TestDevice;

describe("registrations reach the push notification service", () => {
  it("legacy tokens are registered and unregistered there, with the server's credentials", async () => {
    expect(await sys.call(identity.addApnsDeviceToken, { token: APNS_TOKEN, appid: APP_ID }, member)).toEqual(success);
    expect(await sys.call(identity.addAndroidRegId, { token: FCM_TOKEN }, member)).toEqual(success);
    const [apns, fcm] = bouncer.received("push/register");
    expect(apns).toEqual({
      server_uuid: bouncer.orgId,
      user_uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      realm_uuid: expect.any(String),
      user_id: `${member.userId}`,
      token: APNS_TOKEN,
      token_kind: "1",
      ios_app_id: APP_ID,
    });
    expect(fcm).toMatchObject({ token: FCM_TOKEN, token_kind: "2", user_uuid: apns!.user_uuid });
    expect(fcm).not.toHaveProperty("ios_app_id");
    expect(
      bouncer.requests.every(
        (r) => r.endpoint !== "push/register" || r.contentType.startsWith("application/x-www-form-urlencoded"),
      ),
    ).toBe(true);

    await sys.call(identity.addAndroidRegId, { token: "short-lived" }, member);
    expect(await sys.call(identity.removeAndroidRegId, { token: "short-lived" }, member)).toEqual(success);
    expect(bouncer.received("push/unregister")).toEqual([
      expect.objectContaining({ token: "short-lived", token_kind: "2" }),
    ]);
    // unknown to the bouncer too: its error, as Zulip relays it
    await expectZulipError(
      sys.call(identity.removeAndroidRegId, { token: "never-added" }, member),
      badRequestError("Token does not exist"),
    );
  });

  it("an E2EE registration is forwarded for the bouncer to open, and becomes active", async () => {
    const reader = await EventReader.register(sys.api(member), { event_types: ["push_device"] });
    e2eeDevice = await registerE2eeDevice(member, 2408, "fcm-e2ee-token");
    // Zulip's push_device event tells the clients at once
    await reader.until((events) => events.length > 0);
    expect(reader.ofType("push_device")).toEqual([
      { id: expect.any(Number), type: "push_device", push_account_id: "2408", status: "active" },
    ]);
    // the organization was made after identity started: the bouncer did not know it, so it was uploaded, then retried
    const realmUuid = bouncer.received("push/register")[0]!.realm_uuid as string;
    expect(bouncer.realms.get(realmUuid)).toEqual({
      id: sys.realm.id,
      host: sys.realm.host,
      url: sys.realm.uri,
      name: sys.realm.name,
      org_type: 0,
      date_created: expect.any(Number),
      deactivated: false,
      is_system_bot_realm: false,
      authentication_methods: { Email: true },
      uuid: realmUuid,
      uuid_owner_secret: expect.stringMatching(/^zuliprealm_[0-9a-f]{32}$/),
    });
    expect(bouncer.received("push/e2ee/register").at(-1)).toEqual({
      realm_uuid: bouncer.received("push/register")[0]!.realm_uuid,
      push_account_id: "2408",
      encrypted_push_registration: expect.any(String),
      bouncer_public_key: bouncer.publicKey,
    });
  });

  it("a registration the bouncer cannot open fails with its error code", async () => {
    const reader = await EventReader.register(sys.api(sender), { event_types: ["push_device"] });
    const device = await makeTestDevice();
    await sys.call(
      identity.registerPushDevice,
      {
        token_kind: "apns",
        push_account_id: 77,
        push_public_key: device.pushPublicKey,
        bouncer_public_key: bouncer.publicKey,
        encrypted_push_registration: "bm90IGEgc2VhbGVkIGJveA==",
      },
      sender,
    );
    expect(await until(async () => (await pushDevices(sender))["77"]?.error_code ?? undefined, "the failure")).toBe(
      "INVALID_ENCRYPTED_PUSH_REGISTRATION",
    );
    expect((await pushDevices(sender))["77"]).toEqual({
      status: "failed",
      error_code: "INVALID_ENCRYPTED_PUSH_REGISTRATION",
    });
    await reader.until((events) => events.length > 0);
    expect(reader.ofType("push_device")).toEqual([
      {
        id: expect.any(Number),
        type: "push_device",
        push_account_id: "77",
        status: "failed",
        error_code: "INVALID_ENCRYPTED_PUSH_REGISTRATION",
      },
    ]);
  });
});

describe("missed-message notices", () => {
  it("go both ways: Zulip's APNs and FCM payloads, and data only the device can read", async () => {
    const notice = channelNotice(member);
    await publishPush(notice);
    const [legacy] = await bouncer.waitFor("push/notify");
    const [e2ee] = await bouncer.waitFor("push/e2ee/notify");
    const realm = { realm_url: sys.realm.uri, realm_name: sys.realm.name, user_id: member.userId };
    const where = { sender_id: sender.userId, sender_email: sender.email, topic: "plans" };
    expect(legacy).toEqual({
      user_uuid: bouncer.received("push/register")[0]!.user_uuid,
      user_id: member.userId,
      realm_uuid: bouncer.received("push/register")[0]!.realm_uuid,
      apns_payload: {
        alert: { title: "#Denmark > plans", subtitle: "Sue Sender mentioned you:", body: "@Mo Bile see this & that" },
        sound: "default",
        badge: 0,
        custom: {
          zulip: {
            ...realm,
            realm_uri: sys.realm.uri,
            ...where,
            recipient_type: "stream",
            stream: "Denmark",
            stream_id: 7,
            message_ids: [notice.message.id],
          },
        },
      },
      gcm_payload: {
        ...realm,
        server: sys.realm.host,
        realm_id: sys.realm.id,
        realm_uri: sys.realm.uri,
        ...where,
        recipient_type: "stream",
        stream: "Denmark",
        stream_id: 7,
        event: "message",
        zulip_message_id: notice.message.id,
        time: 1754385395,
        content: "@Mo Bile see this & that",
        sender_full_name: "Sue Sender",
        sender_avatar_url: expect.stringMatching(/^https:\/\/secure\.gravatar\.com\/avatar\//),
      },
      gcm_options: { priority: "high" },
      android_devices: [FCM_TOKEN],
      apple_devices: [APNS_TOKEN],
    });
    const [request] = e2ee!.push_requests as Array<{
      device_id: number;
      fcm_priority: string;
      payload: Record<string, unknown>;
    }>;
    expect(request).toEqual({
      device_id: bouncer.devices[0]!.deviceId,
      fcm_priority: "high",
      payload: { push_account_id: 2408, encrypted_data: expect.any(String) },
    });
    // the documented data of api_docs/mobile-notifications.md: no sender_email, channel_* names
    expect(e2eeDevice.open(request!.payload.encrypted_data as string)).toEqual({
      ...realm,
      sender_id: sender.userId,
      recipient_type: "channel",
      channel_name: "Denmark",
      channel_id: 7,
      topic: "plans",
      type: "message",
      message_id: notice.message.id,
      time: 1754385395,
      content: "@Mo Bile see this & that",
      sender_full_name: "Sue Sender",
      sender_avatar_url: expect.any(String),
    });
  });

  it("a direct message lists its participants; a notice delivered again notifies once", async () => {
    const dm = channelNotice(member, { trigger: "private_message" });
    const notice = {
      ...dm,
      message: {
        ...dm.message,
        type: "private" as const,
        channelId: undefined,
        channelName: undefined,
        topic: undefined,
        directRecipientIds: [member.userId, sender.userId],
      },
    };
    const before = bouncer.received("push/e2ee/notify").length;
    // the same notice published twice (a publisher's retry past the duplicate window)
    await publishPush(notice);
    await publishPush(notice);
    const e2ee = await bouncer.waitFor("push/e2ee/notify", before + 1);
    const data = e2eeDevice.open(
      (e2ee[before]!.push_requests as Array<{ payload: { encrypted_data: string } }>)[0]!.payload.encrypted_data,
    );
    expect(data).toMatchObject({
      recipient_type: "direct",
      recipient_user_ids: [member.userId, sender.userId].sort((a, b) => a - b),
      message_id: notice.message.id,
    });
    const legacy = bouncer.received("push/notify").at(-1)!;
    expect(legacy.apns_payload).toMatchObject({ alert: { title: "Sue Sender", subtitle: "" } });
    expect(legacy.gcm_payload).toMatchObject({ recipient_type: "private" });
    expect(legacy.gcm_payload).not.toHaveProperty("pm_users");
    await new Promise((r) => setTimeout(r, 1500));
    expect(bouncer.received("push/e2ee/notify")).toHaveLength(before + 1);
    expect(
      bouncer
        .received("push/notify")
        .filter((b) => (b.gcm_payload as { zulip_message_id?: number }).zulip_message_id === notice.message.id),
    ).toHaveLength(1);
  });

  it("a removal that comes while a way is being sent withdraws it that way too", async () => {
    const shown = channelNotice(member);
    const legacyBefore = bouncer.received("push/notify").length;
    const e2eeBefore = bouncer.received("push/e2ee/notify").length;
    const release = bouncer.holdNext("push/e2ee/notify");
    try {
      await publishPush(shown);
      // the E2EE way reached the bouncer, which has not answered: it is being sent
      await bouncer.waitFor("push/e2ee/notify", e2eeBefore + 1);
      await publish(notifications.notificationWorkSubjects.pushRemoval, {
        realmId: sys.realm.id,
        userId: member.userId,
        messageIds: [shown.message.id],
      });
      const legacy = (await bouncer.waitFor("push/notify", legacyBefore + 2))[legacyBefore + 1]!;
      expect(legacy.gcm_payload).toMatchObject({ event: "remove", zulip_message_ids: `${shown.message.id}` });
      // as Zulip sets active_mobile_push_notification before it sends
      const e2ee = (await bouncer.waitFor("push/e2ee/notify", e2eeBefore + 2))[e2eeBefore + 1]!;
      const [request] = e2ee.push_requests as Array<{ payload: { encrypted_data: string } }>;
      expect(e2eeDevice.open(request!.payload.encrypted_data)).toMatchObject({
        type: "remove",
        message_ids: [shown.message.id],
      });
    } finally {
      release();
    }
  });

  it("a removal withdraws what was sent, each way, and only that", async () => {
    const shown = channelNotice(member);
    const e2eeBefore = bouncer.received("push/e2ee/notify").length + 1;
    await publishPush(shown);
    // sent both ways (the E2EE way goes second)
    await bouncer.waitFor("push/e2ee/notify", e2eeBefore);
    const legacyBefore = bouncer.received("push/notify").length;
    const neverSent = 987654;
    const removed = { kind: "remove", outcome: "ok" };
    const removedBefore = counterSum(await identityMetrics(), "push_work_items_total", removed);
    await publish(notifications.notificationWorkSubjects.pushRemoval, {
      realmId: sys.realm.id,
      userId: member.userId,
      messageIds: [shown.message.id, neverSent],
    });
    const legacy = (await bouncer.waitFor("push/notify", legacyBefore + 1))[legacyBefore]!;
    expect(legacy.gcm_payload).toEqual({
      server: sys.realm.host,
      realm_id: sys.realm.id,
      realm_uri: sys.realm.uri,
      realm_url: sys.realm.uri,
      realm_name: sys.realm.name,
      user_id: member.userId,
      event: "remove",
      zulip_message_ids: `${shown.message.id}`,
    });
    expect(legacy.gcm_options).toEqual({ priority: "normal" });
    expect(legacy.apns_payload).toEqual({
      badge: 0,
      custom: {
        zulip: {
          realm_uri: sys.realm.uri,
          realm_url: sys.realm.uri,
          realm_name: sys.realm.name,
          user_id: member.userId,
          event: "remove",
          zulip_message_ids: `${shown.message.id}`,
        },
      },
    });
    const e2ee = (await bouncer.waitFor("push/e2ee/notify", e2eeBefore + 1))[e2eeBefore]!;
    const [request] = e2ee.push_requests as Array<{ fcm_priority: string; payload: { encrypted_data: string } }>;
    expect(request!.fcm_priority).toBe("normal");
    expect(e2eeDevice.open(request!.payload.encrypted_data)).toEqual({
      realm_url: sys.realm.uri,
      realm_name: sys.realm.name,
      user_id: member.userId,
      type: "remove",
      message_ids: [shown.message.id],
    });
    // the first removal finished (items are handled side by side, so a copy during it could withdraw twice)
    await until(
      async () =>
        counterSum(await identityMetrics(), "push_work_items_total", removed) > removedBefore ? true : undefined,
      "the removal's end",
    );
    // withdrawn: the same removal again sends nothing
    await publish(notifications.notificationWorkSubjects.pushRemoval, {
      realmId: sys.realm.id,
      userId: member.userId,
      messageIds: [shown.message.id],
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(bouncer.received("push/e2ee/notify")).toHaveLength(e2eeBefore + 1);
  });

  it("a failing bouncer is tried again with a growing wait, and the metrics show it", async () => {
    const before = await identityMetrics();
    const sentMessages = { kind: "message", outcome: "ok" };
    const notice = channelNotice(member);
    const legacyBefore = bouncer.received("push/notify").length;
    bouncer.failNext(3, 503);
    const started = Date.now();
    await publishPush(notice);
    const legacy = await bouncer.waitFor("push/notify", legacyBefore + 4);
    // three answered 503 (tries 1, 2, 3), then waits of 1 s, 2 s, 4 s before the fourth
    expect(Date.now() - started).toBeGreaterThanOrEqual(6500);
    expect((legacy.at(-1)!.gcm_payload as { zulip_message_id: number }).zulip_message_id).toBe(notice.message.id);
    await bouncer.waitFor("push/e2ee/notify", bouncer.received("push/e2ee/notify").length);
    const after = await until(async () => {
      const text = await identityMetrics();
      return counterSum(text, "push_work_items_total", sentMessages) >
        counterSum(before, "push_work_items_total", sentMessages)
        ? text
        : undefined;
    }, "the sent count");
    expect(
      counterSum(after, "push_work_items_total", { kind: "message", outcome: "retry" }) -
        counterSum(before, "push_work_items_total", { kind: "message", outcome: "retry" }),
    ).toBe(3);
    expect(
      counterSum(after, "push_bouncer_requests_total", { endpoint: "push/notify", outcome: "retry_later" }) -
        counterSum(before, "push_bouncer_requests_total", { endpoint: "push/notify", outcome: "retry_later" }),
    ).toBe(3);
  }, 30_000);
});

describe("test notifications", () => {
  it("POST /mobile_push/test_notification goes through the bouncer, once per token", async () => {
    expect(await sys.call(identity.sendTestPushNotification, { token: FCM_TOKEN }, member)).toEqual(success);
    expect(bouncer.received("push/test_notification").at(-1)).toEqual({
      realm_uuid: expect.any(String),
      user_uuid: expect.any(String),
      user_id: member.userId,
      token: FCM_TOKEN,
      token_kind: 2,
      base_payload: {
        server: sys.realm.host,
        realm_id: sys.realm.id,
        realm_uri: sys.realm.uri,
        realm_url: sys.realm.uri,
        realm_name: sys.realm.name,
        user_id: member.userId,
      },
    });
    const count = bouncer.received("push/test_notification").length;
    expect(await sys.call(identity.sendTestPushNotification, {}, member)).toEqual(success);
    expect(bouncer.received("push/test_notification")).toHaveLength(count + 2);
  });

  it("its failures answer as Zulip's: 502 when the bouncer is down", async () => {
    bouncer.failNext(1, 502);
    await expectZulipError(sys.call(identity.sendTestPushNotification, { token: FCM_TOKEN }, member), {
      status: 502,
      code: "BAD_REQUEST",
      msg: "Received 502 from push notification bouncer",
    });
  });

  it("POST /mobile_push/e2ee/test_notification seals a test notification for the device", async () => {
    const before = bouncer.received("push/e2ee/notify").length;
    expect(await sys.call(identity.sendE2eeTestPushNotification, { push_account_id: 2408 }, member)).toEqual(success);
    const [request] = bouncer.received("push/e2ee/notify")[before]!.push_requests as Array<{
      payload: { encrypted_data: string };
    }>;
    expect(e2eeDevice.open(request!.payload.encrypted_data)).toEqual({
      realm_url: sys.realm.uri,
      realm_name: sys.realm.name,
      user_id: member.userId,
      type: "test",
      time: expect.any(Number),
    });
    // raw HTTP with the form field as the apps send it
    const res = await sys.api(member).post("/mobile_push/e2ee/test_notification", {});
    expect(res.body).toEqual(success);
  });

  it("answers NO_ACTIVE_PUSH_DEVICE without an active device, and the bouncer's failures as Zulip does", async () => {
    const noDevice = badRequestError("No active registered push device", "NO_ACTIVE_PUSH_DEVICE");
    await expectZulipError(sys.call(identity.sendE2eeTestPushNotification, { push_account_id: 1 }, member), noDevice);
    await expectZulipError(sys.call(identity.sendE2eeTestPushNotification, {}, sender), noDevice);
    bouncer.failNext(1, 500);
    await expectZulipError(sys.call(identity.sendE2eeTestPushNotification, {}, member), {
      status: 502,
      code: "INTERNAL_SERVER_ERROR_ON_BOUNCER",
      msg: "Internal server error on Zulip push notification service, retry later.",
    });
    // the bouncer no longer has the device: it is dropped here too
    const other = await sys.makeUser("Gone", 400);
    await registerE2eeDevice(other, 5, "fcm-gone-token");
    bouncer.dropDevice(bouncer.devices.find((d) => d.token === "fcm-gone-token")!.deviceId);
    await expectZulipError(sys.call(identity.sendE2eeTestPushNotification, {}, other), noDevice);
    expect(await pushDevices(other)).toEqual({});
  });
});

describe("durability", () => {
  it("a notice published while no identity instance runs waits in the stream, and is sent once one starts", async () => {
    await sys.killService("identity");
    const notice = channelNotice(member);
    const before = bouncer.received("push/e2ee/notify").length;
    await publishPush(notice);
    await new Promise((r) => setTimeout(r, 500));
    expect(bouncer.received("push/e2ee/notify")).toHaveLength(before);
    await sys.startService("identity");
    const [request] = (await bouncer.waitFor("push/e2ee/notify", before + 1))[before]!.push_requests as Array<{
      payload: { encrypted_data: string };
    }>;
    expect(e2eeDevice.open(request!.payload.encrypted_data)).toMatchObject({ message_id: notice.message.id });
  }, 30_000);

  it("a way another try still holds (one that died mid-send) is sent once its lease ends, not taken as sent", async () => {
    const notice = channelNotice(member);
    const leaseEnds = Date.now() + 3_000;
    const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
    try {
      await client
        .db(`${sys.config.MONGO_DB_PREFIX}_identity`)
        .collection("sentpushes")
        .insertOne({
          realmId: sys.realm.id,
          userId: member.userId,
          messageId: notice.message.id,
          sent: [],
          removed: [],
          claims: { legacy: new Date(leaseEnds) },
          sentAt: new Date(),
        });
    } finally {
      await client.close();
    }
    const legacyOf = () =>
      bouncer
        .received("push/notify")
        .filter((b) => (b.gcm_payload as { zulip_message_id?: number }).zulip_message_id === notice.message.id);
    await publishPush(notice);
    await until(async () => (legacyOf().length > 0 ? true : undefined), "the held way's notification");
    expect(Date.now()).toBeGreaterThanOrEqual(leaseEnds);
    await new Promise((r) => setTimeout(r, 1500));
    expect(legacyOf()).toHaveLength(1);
  }, 30_000);
});
