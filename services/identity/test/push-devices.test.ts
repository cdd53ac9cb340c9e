/**
 * Push devices on a server without a push notification service (the test
 * system sets no PUSH_NOTIFICATION_BOUNCER_URL): POST /mobile_push/register
 * refused with PUSH_SERVICE_NOT_CONFIGURED, the legacy APNs / FCM tokens kept
 * and removed with Zulip's validation (zerver/views/push_notifications.py), and
 * POST /mobile_push/test_notification. push-devices-bouncer.test.ts covers a
 * configured service.
 */
import { identity, notifications } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let member: TestUser, guest: TestUser, other: TestUser, bot: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  member = await org.makeUser("Pusher", 400);
  guest = await org.makeUser("PushGuest", 600);
  other = await org.makeUser("Other", 400);
  const created = await org.call(identity.createBot, { full_name: "Push Bot", short_name: "pushbot" }, member);
  const { bots } = await org.call(identity.getBots, {}, member);
  bot = { ...member, email: bots.find((b) => b.api_key === created.api_key)!.username, apiKey: created.api_key };
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const APNS_TOKEN = "c0ffee00".repeat(8);
const registration = {
  token_kind: "fcm",
  push_account_id: 2408,
  push_public_key: "MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt",
  bouncer_public_key: "K2H7yqV/g0HUV9Ry8fA3cN2XoqU6S3bYbEqvAYVQ1GI=",
  encrypted_push_registration: "ZW5jcnlwdGVk",
} as const;
const notConfigured = badRequestError(
  "Server is not configured to use push notification service.",
  "PUSH_SERVICE_NOT_CONFIGURED",
);
const pushDevices = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["push_device"] }, user)) as unknown as {
      push_devices: unknown;
    }
  ).push_devices;
const testNotification = (user: TestUser, token?: string) =>
  org.call(identity.sendTestPushNotification, token === undefined ? {} : { token }, user);

describe("POST /mobile_push/register without a push notification service", () => {
  it("is refused with PUSH_SERVICE_NOT_CONFIGURED for every role, and stores nothing", async () => {
    for (const user of [org.owner, member, guest]) {
      await expectZulipError(org.call(identity.registerPushDevice, registration, user), notConfigured);
      expect(await pushDevices(user)).toEqual({});
    }
  });

  it("checks the parameters first, as Zulip's typed endpoint does, and refuses bots", async () => {
    const raw = (params: Record<string, unknown>, user = member) =>
      org.api(user).post("/mobile_push/register", { ...registration, ...params });
    await expectZulipError(raw({ token_kind: "gcm" }), badRequestError("Invalid token_kind"));
    await expectZulipError(raw({ push_account_id: "abc" }), badRequestError("push_account_id is not valid JSON"));
    await expectZulipError(raw({ push_account_id: 1.5 }), badRequestError("push_account_id is not an integer"));
    const { push_public_key: _, ...missingKey } = registration;
    await expectZulipError(org.api(member).post("/mobile_push/register", missingKey), {
      ...badRequestError("Missing 'push_public_key' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "push_public_key",
    });
    await expectZulipError(raw({}, bot), badRequestError("This endpoint does not accept bot requests."));
  });
});

describe("legacy APNs and FCM tokens", () => {
  it("adds, lists through test_notification, and removes an APNs token; removing it again is refused", async () => {
    expect(
      await org.call(identity.addApnsDeviceToken, { token: APNS_TOKEN, appid: "org.zulip.Zulip" }, member),
    ).toEqual(success);
    // the same token again is kept once (Zulip's ignore_conflicts)
    await org.call(identity.addApnsDeviceToken, { token: APNS_TOKEN, appid: "org.zulip.Zulip" }, member);
    expect(await testNotification(member, APNS_TOKEN)).toEqual(success);
    expect(await org.call(identity.removeApnsDeviceToken, { token: APNS_TOKEN }, member)).toEqual(success);
    await expectZulipError(
      org.call(identity.removeApnsDeviceToken, { token: APNS_TOKEN }, member),
      badRequestError("Token does not exist"),
    );
    await expectZulipError(
      testNotification(member, APNS_TOKEN),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
  });

  it("adds and removes an FCM token; a token is each user's own and each kind's own", async () => {
    expect(await org.call(identity.addAndroidRegId, { token: "fcm-token-1" }, guest)).toEqual(success);
    await expectZulipError(
      org.call(identity.removeAndroidRegId, { token: "fcm-token-1" }, other),
      badRequestError("Token does not exist"),
    );
    await expectZulipError(
      testNotification(other, "fcm-token-1"),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
    await org.call(identity.addAndroidRegId, { token: "c0ffee" }, guest);
    await expectZulipError(
      org.call(identity.removeApnsDeviceToken, { token: "c0ffee" }, guest),
      badRequestError("Token does not exist"),
    );
    expect(await testNotification(guest, "fcm-token-1")).toEqual(success);
    expect(await org.call(identity.removeAndroidRegId, { token: "fcm-token-1" }, guest)).toEqual(success);
    expect(await org.call(identity.removeAndroidRegId, { token: "c0ffee" }, guest)).toEqual(success);
    await expectZulipError(
      testNotification(guest, "c0ffee"),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
  });

  it("refuses what Zulip's validate_token and ApnsAppId refuse, and keeps nothing", async () => {
    const long = "a".repeat(4097);
    for (const [call, msg] of [
      [() => org.call(identity.addAndroidRegId, { token: "" }, member), "Empty or invalid length token"],
      [() => org.call(identity.addAndroidRegId, { token: long }, member), "Empty or invalid length token"],
      [() => org.call(identity.removeAndroidRegId, { token: "" }, member), "Empty or invalid length token"],
      [
        () => org.call(identity.addApnsDeviceToken, { token: "", appid: "org.zulip.Zulip" }, member),
        "Empty or invalid length token",
      ],
      [
        () => org.call(identity.addApnsDeviceToken, { token: "apple-token", appid: "org.zulip.Zulip" }, member),
        "Invalid APNS token",
      ],
      [
        () => org.call(identity.addApnsDeviceToken, { token: "abc", appid: "org.zulip.Zulip" }, member),
        "Invalid APNS token",
      ],
      [() => org.call(identity.removeApnsDeviceToken, { token: "xyz0" }, member), "Invalid APNS token"],
      [() => org.call(identity.addApnsDeviceToken, { token: APNS_TOKEN, appid: "org zulip" }, member), "Invalid appid"],
    ] as const) {
      await expectZulipError(call(), badRequestError(msg));
    }
    await expectZulipError(org.api(member).post("/users/me/apns_device_token", { token: APNS_TOKEN }), {
      ...badRequestError("Missing 'appid' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "appid",
    });
    await expectZulipError(
      testNotification(member, long),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
    await expectZulipError(
      testNotification(member, APNS_TOKEN),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
  });

  it("are for people: bots are refused on every operation", async () => {
    const refused = badRequestError("This endpoint does not accept bot requests.");
    await expectZulipError(org.call(identity.addAndroidRegId, { token: "t" }, bot), refused);
    await expectZulipError(org.call(identity.removeAndroidRegId, { token: "t" }, bot), refused);
    await expectZulipError(org.call(identity.addApnsDeviceToken, { token: APNS_TOKEN, appid: "a.b" }, bot), refused);
    await expectZulipError(org.call(identity.removeApnsDeviceToken, { token: APNS_TOKEN }, bot), refused);
    await expectZulipError(testNotification(bot), refused);
  });
});

describe("POST /mobile_push/test_notification without a push notification service", () => {
  it("answers success for all the caller's devices, or none, as Zulip does with nowhere to send", async () => {
    expect(await testNotification(other)).toEqual(success);
    await org.call(identity.addAndroidRegId, { token: "other-fcm" }, other);
    expect(await testNotification(other)).toEqual(success);
    expect(await testNotification(other, "other-fcm")).toEqual(success);
  });
});
