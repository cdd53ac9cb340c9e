import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";
import { int } from "../common";

/**
 * Zulip's DeviceInfoDict (zerver/lib/devices.py, FL 468): a logged-in
 * device's E2EE push registration, all null until it registers for push
 * notifications.
 */
export const deviceInfoSchema = z.strictObject({
  push_key_id: int.nullable(),
  push_token_id: z.string().nullable(),
  pending_push_token_id: z.string().nullable(),
  push_token_last_updated_timestamp: int.nullable(),
  push_registration_error_code: z.string().nullable(),
});
export type DeviceInfo = z.infer<typeof deviceInfoSchema>;

/** POST /register_client_device (Zulip's register_device, FL 468): a new device of the caller's. */
export const registerClientDevice = defineContract({
  subject: "identity.devices.register",
  http: { method: "POST", path: "/register_client_device", auth: "user" },
  params: z.object({}),
  reply: z.strictObject({ device_id: int }),
});

/** POST /remove_client_device (Zulip's remove_device, FL 470): one of the caller's devices. */
export const removeClientDevice = defineContract({
  subject: "identity.devices.remove",
  http: { method: "POST", path: "/remove_client_device", auth: "user" },
  params: z.object({ device_id: int }),
  reply: emptyReply,
});
