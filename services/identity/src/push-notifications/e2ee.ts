import sodium from "libsodium-wrappers";
import type { PushDeviceDoc } from "../push-devices/push-device.schema";
import type { Payload } from "./payloads";

/**
 * The data of a notification encrypted for one device: a NaCl sealed box
 * (libsodium's crypto_box_seal: an ephemeral X25519 key, XSalsa20-Poly1305)
 * to the device's push_public_key, base64 (Zulip's get_encrypted_data with
 * PyNaCl's SealedBox and Base64Encoder). Only the device's private key opens it.
 */
export async function sealForDevice(data: Payload, pushPublicKey: string): Promise<string> {
  await sodium.ready;
  const publicKey = sodium.from_base64(pushPublicKey, sodium.base64_variants.ORIGINAL);
  return sodium.to_base64(sodium.crypto_box_seal(JSON.stringify(data), publicKey), sodium.base64_variants.ORIGINAL);
}

/** What kind of notification a request carries: removals go at low priority, in the background. */
export type E2eeKind = "message" | "remove" | "test";

/** A device the bouncer knows (its registration forwarded and accepted). */
export type ActivePushDevice = PushDeviceDoc & { bouncerDeviceId: number };

/**
 * The push_requests of Zulip's POST /api/v1/remotes/push/e2ee/notify, one per
 * device (send_push_notifications): the bouncer's device id, the delivery
 * priority, and the encrypted data with the push_account_id the app finds its
 * account by; APNs ones carry the visible placeholder the app replaces.
 */
export async function e2eePushRequests(devices: ActivePushDevice[], data: Payload, kind: E2eeKind): Promise<Payload[]> {
  const removal = kind === "remove";
  return Promise.all(
    devices.map(async (device) => {
      const payload = {
        push_account_id: device.pushAccountId,
        encrypted_data: await sealForDevice(data, device.pushPublicKey),
      };
      if (device.tokenKind === "fcm") {
        return { device_id: device.bouncerDeviceId, fcm_priority: removal ? "normal" : "high", payload };
      }
      return {
        device_id: device.bouncerDeviceId,
        http_headers: { apns_priority: removal ? 5 : 10, apns_push_type: removal ? "background" : "alert" },
        payload: { ...payload, aps: { "mutable-content": 1, alert: { title: "New notification" } } },
      };
    }),
  );
}
