import { ZulipError, badRequest } from "@teamchat/shared";
import type { PushDeviceTokenDoc } from "./push-device-token.schema";

/** Zulip's validate_token: a token of at most 4096 characters; an APNs token is hex (Python's bytes.fromhex, whitespace between bytes allowed). */
export function validateToken(token: string, kind: PushDeviceTokenDoc["kind"]): void {
  if (token === "" || token.length > 4096) throw badRequest("Empty or invalid length token");
  if (kind === "apns" && !/^(?:\s*[0-9a-fA-F]{2})*\s*$/.test(token)) throw badRequest("Invalid APNS token");
}

/** RFC 4648 standard base64, padded (Python's b64decode(validate=True)). */
const isBase64 = (value: string): boolean =>
  value !== "" && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value);

/**
 * register_push_device's keys and ciphertext are base64; a value that is not cannot be decrypted
 * (Zulip's bouncer refuses it: INVALID_BOUNCER_PUBLIC_KEY for its key, BAD_REQUEST otherwise).
 */
export function checkPushRegistration(p: {
  push_public_key: string;
  bouncer_public_key: string;
  encrypted_push_registration: string;
}): void {
  if (!isBase64(p.push_public_key)) throw badRequest("Invalid push_public_key");
  if (!isBase64(p.bouncer_public_key)) {
    throw new ZulipError("INVALID_BOUNCER_PUBLIC_KEY", "Invalid bouncer_public_key");
  }
  if (!isBase64(p.encrypted_push_registration)) throw badRequest("Invalid encrypted_push_registration");
}

/** Zulip's PushServiceNotConfiguredError (register_push_device without a push notification service). */
export const pushServiceNotConfigured = () =>
  new ZulipError("PUSH_SERVICE_NOT_CONFIGURED", "Server is not configured to use push notification service.");

/** Zulip's InvalidPushDeviceTokenError. */
export const deviceNotRecognized = () => new ZulipError("INVALID_PUSH_DEVICE_TOKEN", "Device not recognized");
