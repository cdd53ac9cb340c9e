import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/**
 * Push notification devices (Zulip's
 * zerver/views/push_notifications.py). Tokens and keys are strings taken as
 * sent: their checks (Zulip's validate_token, base64) give Zulip's messages in
 * the handlers, after the parameters' types.
 */

/** Zulip's PushDevice.TokenKind. */
export const PUSH_TOKEN_KINDS = ["fcm", "apns"] as const;

/**
 * One E2EE registration as register's push_devices lists it (Zulip's
 * get_push_devices, FL 406): `pending` until the bouncer confirms it,
 * `active` after, `failed` with the bouncer's error code.
 */
export const pushDeviceInfoSchema = z.strictObject({
  status: z.enum(["active", "pending", "failed"]),
  error_code: z.string().nullable(),
});
export type PushDeviceInfo = z.infer<typeof pushDeviceInfoSchema>;

/** POST /mobile_push/register (Zulip's register_push_device, FL 406): registers a device for end-to-end encrypted notifications. */
export const registerPushDevice = defineContract({
  subject: "identity.push_devices.register",
  http: { method: "POST", path: "/mobile_push/register", auth: "user" },
  params: z.object({
    token_kind: z.enum(PUSH_TOKEN_KINDS),
    push_account_id: int,
    push_public_key: z.string(),
    bouncer_public_key: z.string(),
    encrypted_push_registration: z.string(),
  }),
  reply: emptyReply,
});

/** Zulip's ApnsAppId: an iOS bundle id. */
const apnsAppId = z.string().regex(/^[.a-zA-Z0-9-]+$/);

/** POST /users/me/apns_device_token: the legacy (not encrypted) registration of an iOS device. */
export const addApnsDeviceToken = defineContract({
  subject: "identity.push_tokens.add_apns",
  http: { method: "POST", path: "/users/me/apns_device_token", auth: "user" },
  params: z.object({ token: z.string(), appid: apnsAppId }),
  reply: emptyReply,
});

/** DELETE /users/me/apns_device_token. */
export const removeApnsDeviceToken = defineContract({
  subject: "identity.push_tokens.remove_apns",
  http: { method: "DELETE", path: "/users/me/apns_device_token", auth: "user" },
  params: z.object({ token: z.string() }),
  reply: emptyReply,
});

/** POST /users/me/android_gcm_reg_id: the legacy registration of an FCM token. */
export const addAndroidRegId = defineContract({
  subject: "identity.push_tokens.add_fcm",
  http: { method: "POST", path: "/users/me/android_gcm_reg_id", auth: "user" },
  params: z.object({ token: z.string() }),
  reply: emptyReply,
});

/** DELETE /users/me/android_gcm_reg_id. */
export const removeAndroidRegId = defineContract({
  subject: "identity.push_tokens.remove_fcm",
  http: { method: "DELETE", path: "/users/me/android_gcm_reg_id", auth: "user" },
  params: z.object({ token: z.string() }),
  reply: emptyReply,
});

/** POST /mobile_push/test_notification (FL 217): a test notification to one of the caller's legacy tokens, or all. */
export const sendTestPushNotification = defineContract({
  subject: "identity.push_tokens.test_notification",
  http: { method: "POST", path: "/mobile_push/test_notification", auth: "user" },
  params: z.object({ token: z.string().optional() }),
  reply: emptyReply,
});

/**
 * POST /mobile_push/e2ee/test_notification (FL 420): an end-to-end encrypted
 * test notification to the caller's device of this push_account_id, or all of
 * their devices the push notification service knows.
 */
export const sendE2eeTestPushNotification = defineContract({
  subject: "identity.push_devices.e2ee_test_notification",
  http: { method: "POST", path: "/mobile_push/e2ee/test_notification", auth: "user" },
  params: z.object({ push_account_id: int.optional() }),
  reply: emptyReply,
});
