/**
 * Push devices on a server configured with a push notification service that
 * is out of reach (PUSH_NOTIFICATION_BOUNCER_URL with the server's
 * registration, on a private system): E2EE registrations validated, stored per
 * user and push_account_id and replaced by a new one of the same id, listed in
 * register's push_devices (pending: the bouncer never answers); legacy tokens
 * kept here while their registration with the bouncer answers 502, as Zulip's
 * PushNotificationBouncerRetryLaterError. push-notifications.test.ts covers a
 * bouncer that answers.
 */
import { identity, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import type { TestUser } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
let member: TestUser, guest: TestUser;
beforeAll(async () => {
  // nothing listens there: the bouncer is never reached
  sys = await startSystem({
    env: {
      PUSH_NOTIFICATION_BOUNCER_URL: "http://127.0.0.1:9/",
      ZULIP_ORG_ID: "6cde5f7a-1f7e-4978-9716-49f69ebfc9fe",
      ZULIP_ORG_KEY: "server-key",
    },
  });
  member = await sys.makeUser("Pusher", 400);
  guest = await sys.makeUser("Guest", 600);
});
afterAll(() => sys?.stop());

const success = { result: "success", msg: "" };
const registration = {
  token_kind: "apns",
  push_account_id: 2408,
  push_public_key: "MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt",
  bouncer_public_key: "K2H7yqV/g0HUV9Ry8fA3cN2XoqU6S3bYbEqvAYVQ1GI=",
  encrypted_push_registration: "ZW5jcnlwdGVk",
} as const;
const pending = { status: "pending", error_code: null };
const pushDevices = async (user: TestUser) =>
  (
    (await sys.call(notifications.registerQueue, { fetch_event_types: ["push_device"] }, user)) as unknown as {
      push_devices: unknown;
    }
  ).push_devices;

describe("POST /mobile_push/register with a push notification service", () => {
  it("stores a registration per push_account_id; the same id again replaces it; register lists them, per user", async () => {
    expect(await sys.call(identity.registerPushDevice, registration, member)).toEqual(success);
    expect(await pushDevices(member)).toEqual({ "2408": pending });
    await sys.call(identity.registerPushDevice, { ...registration, push_account_id: 7 }, member);
    await sys.call(
      identity.registerPushDevice,
      { ...registration, token_kind: "fcm", encrypted_push_registration: "bmV3IHRva2Vu" },
      member,
    );
    expect(await pushDevices(member)).toEqual({ "2408": pending, "7": pending });
    // guests register their own devices; others' are not theirs
    expect(await sys.call(identity.registerPushDevice, registration, guest)).toEqual(success);
    expect(await pushDevices(guest)).toEqual({ "2408": pending });
    expect(await pushDevices(sys.owner)).toEqual({});
  });

  it("refuses keys and registrations that are not base64, and changes nothing", async () => {
    const before = await pushDevices(member);
    const attempt = (params: Partial<ParamsIn<typeof identity.registerPushDevice>>) =>
      sys.call(identity.registerPushDevice, { ...registration, push_account_id: 99, ...params }, member);
    await expectZulipError(attempt({ push_public_key: "not base64!" }), badRequestError("Invalid push_public_key"));
    await expectZulipError(attempt({ push_public_key: "" }), badRequestError("Invalid push_public_key"));
    await expectZulipError(attempt({ push_public_key: "YWJj=" }), badRequestError("Invalid push_public_key"));
    await expectZulipError(
      attempt({ bouncer_public_key: "bouncer-public-key" }),
      badRequestError("Invalid bouncer_public_key", "INVALID_BOUNCER_PUBLIC_KEY"),
    );
    await expectZulipError(
      attempt({ encrypted_push_registration: "encrypted-push-registration-data" }),
      badRequestError("Invalid encrypted_push_registration"),
    );
    expect(await pushDevices(member)).toEqual(before);
  });
});

describe("legacy tokens and test notifications with a push notification service out of reach", () => {
  const unreachable = {
    status: 502,
    code: "BAD_REQUEST" as const,
    msg: "ConnectionError while trying to connect to push notification bouncer",
  };

  it("adding or removing a token answers 502; the token is kept here, as Zulip stores it before asking the bouncer", async () => {
    await expectZulipError(sys.call(identity.addAndroidRegId, { token: "fcm-1" }, member), unreachable);
    // kept: a test notification names it, and fails on the way to the bouncer
    await expectZulipError(sys.call(identity.sendTestPushNotification, { token: "fcm-1" }, member), unreachable);
    await expectZulipError(sys.call(identity.sendTestPushNotification, {}, member), unreachable);
    await expectZulipError(sys.call(identity.removeAndroidRegId, { token: "fcm-1" }, member), unreachable);
    await expectZulipError(
      sys.call(identity.sendTestPushNotification, { token: "fcm-1" }, member),
      badRequestError("Device not recognized", "INVALID_PUSH_DEVICE_TOKEN"),
    );
  });

  it("an E2EE test notification finds no active device while registrations are pending", async () => {
    await expectZulipError(
      sys.call(identity.sendE2eeTestPushNotification, {}, member),
      badRequestError("No active registered push device", "NO_ACTIVE_PUSH_DEVICE"),
    );
  });
});
