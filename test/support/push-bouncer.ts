/**
 * A local push notification service for tests: the endpoints of Zulip's
 * bouncer (zilencer/views.py) a server calls, on fastify, with its checks —
 * the server's Basic credentials, the fields of each request, the E2EE
 * registration sealed to the bouncer's key — and a record of what arrived.
 * Devices are simulated with libsodium key pairs: sealRegistration() makes
 * what a mobile app sends POST /mobile_push/register, open() reads what the
 * server encrypted for one.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import sodium from "libsodium-wrappers";

/** One request the bouncer received. */
export interface BouncerRequest {
  endpoint: string;
  contentType: string;
  body: Record<string, unknown>;
  /** answered with failNext's status instead of handled */
  failed: boolean;
}

export interface TestDevice {
  /** base64, for POST /mobile_push/register's push_public_key */
  pushPublicKey: string;
  /** opens a sealed box the server made for this device */
  open(encryptedData: string): unknown;
}

const b64 = (bytes: Uint8Array) => sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
const unb64 = (text: string) => sodium.from_base64(text, sodium.base64_variants.ORIGINAL);

export async function makeTestDevice(): Promise<TestDevice> {
  await sodium.ready;
  const keys = sodium.crypto_box_keypair();
  return {
    pushPublicKey: b64(keys.publicKey),
    open: (encryptedData) =>
      JSON.parse(sodium.to_string(sodium.crypto_box_seal_open(unb64(encryptedData), keys.publicKey, keys.privateKey))),
  };
}

interface LegacyToken {
  userUuid: string;
  userId: string;
  realmUuid: string;
  token: string;
  kind: number;
  iosAppId?: string;
}

interface E2eeDevice {
  deviceId: number;
  realmUuid: string;
  pushAccountId: number;
  token: string;
  tokenKind: string;
}

/** Zulip's RemotePushDeviceToken kinds. */
const APNS = 1;
const FCM = 2;

export interface TestBouncer {
  url: string;
  orgId: string;
  orgKey: string;
  /** the server's environment for this bouncer */
  env: Record<string, string>;
  /** the bouncer's public key, for POST /mobile_push/register's bouncer_public_key */
  publicKey: string;
  requests: BouncerRequest[];
  /** what arrived at one endpoint, in order */
  received(endpoint: string): Array<Record<string, unknown>>;
  /** what arrived at one endpoint and was handled (not failed by failNext), in order */
  accepted(endpoint: string): Array<Record<string, unknown>>;
  /** how many requests failNext failed */
  failed: number;
  /** waits until `count` requests reached the endpoint */
  waitFor(endpoint: string, count?: number): Promise<Array<Record<string, unknown>>>;
  /** the next `count` requests (any endpoint) are answered with this status */
  failNext(count: number, status?: number): void;
  /** the next request to the endpoint is recorded at once and answered only when the returned function is called */
  holdNext(endpoint: string): () => void;
  /** what a mobile app encrypts for the bouncer: its token, the token's kind and when */
  sealRegistration(registration: {
    token: string;
    token_kind: "fcm" | "apns";
    ios_app_id?: string;
    timestamp?: number;
  }): string;
  /** the E2EE devices the bouncer registered */
  devices: E2eeDevice[];
  /** the organizations the server uploaded (remotes/server/analytics), by uuid */
  realms: Map<string, Record<string, unknown>>;
  /** forgets a registered E2EE device (as when FCM or APNs reports it gone) */
  dropDevice(deviceId: number): void;
  close(): Promise<void>;
}

const success = (reply: FastifyReply, data: Record<string, unknown> = {}) =>
  reply.send({ result: "success", msg: "", ...data });
const error = (reply: FastifyReply, status: number, msg: string, code = "BAD_REQUEST") =>
  reply.status(status).send({ result: "error", msg, code });

export async function startTestBouncer(): Promise<TestBouncer> {
  await sodium.ready;
  const orgId = randomUUID();
  const orgKey = `key-${randomUUID()}`;
  const keys = sodium.crypto_box_keypair();
  const requests: BouncerRequest[] = [];
  const tokens: LegacyToken[] = [];
  const devices: E2eeDevice[] = [];
  /** the organizations the server uploaded, by uuid */
  const realms = new Map<string, Record<string, unknown>>();
  let failing = { count: 0, status: 503 };
  /** holdNext's endpoints, each with the wait its next request's answer is held by */
  const holds = new Map<string, Promise<void>>();
  let nextDeviceId = 1000;

  const app = Fastify();
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const remote = (endpoint: string, handle: (body: Record<string, unknown>, reply: FastifyReply) => unknown) =>
    app.post(`/api/v1/remotes/${endpoint}`, async (req: FastifyRequest, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const failed = failing.count > 0;
      requests.push({ endpoint, contentType: String(req.headers["content-type"]), body, failed });
      if (failed) {
        failing.count--;
        return reply.status(failing.status).send("bouncer down");
      }
      const held = holds.get(endpoint);
      holds.delete(endpoint);
      await held;
      // zilencer's authenticated_remote_server_view
      const expected = `Basic ${Buffer.from(`${orgId}:${orgKey}`).toString("base64")}`;
      if (req.headers.authorization !== expected) {
        return error(reply, 401, `Zulip server auth failure: key does not match role ${orgId}`, "INVALID_ZULIP_SERVER");
      }
      if (!String(req.headers["user-agent"]).startsWith("ZulipServer/")) return error(reply, 400, "Bad user agent");
      return handle(body, reply);
    });

  // zilencer's register_remote_push_device: form fields, token_kind 1 (APNs, with its app id) or 2 (FCM)
  remote("push/register", (body, reply) => {
    const kind = Number(body.token_kind);
    if (body.server_uuid !== orgId) return error(reply, 400, "Invalid server_uuid");
    if (![APNS, FCM].includes(kind)) return error(reply, 400, "Invalid token type");
    if (typeof body.token !== "string" || typeof body.user_uuid !== "string") return error(reply, 400, "Missing token");
    if (kind === APNS && typeof body.ios_app_id !== "string") return error(reply, 400, "Missing ios_app_id");
    if (!tokens.some((t) => t.token === body.token && t.userUuid === body.user_uuid)) {
      tokens.push({
        userUuid: body.user_uuid,
        userId: String(body.user_id),
        realmUuid: String(body.realm_uuid),
        token: body.token,
        kind,
        iosAppId: body.ios_app_id as string | undefined,
      });
    }
    return success(reply);
  });
  remote("push/unregister", (body, reply) => {
    const at = tokens.findIndex(
      (t) => t.token === body.token && t.kind === Number(body.token_kind) && t.userUuid === body.user_uuid,
    );
    if (at < 0) return error(reply, 400, "Token does not exist");
    tokens.splice(at, 1);
    return success(reply);
  });
  // zilencer's remote_server_notify_push: JSON; answers what it sent and the tokens it does not have
  remote("push/notify", (body, reply) => {
    const mine = tokens.filter((t) => t.userUuid === body.user_uuid);
    const missing = (listed: unknown, kind: number) =>
      ((listed as string[]) ?? []).filter((token) => !mine.some((t) => t.token === token && t.kind === kind));
    return success(reply, {
      total_android_devices: mine.filter((t) => t.kind === FCM).length,
      total_apple_devices: mine.filter((t) => t.kind === APNS).length,
      deleted_devices: {
        android_devices: missing(body.android_devices, FCM),
        apple_devices: missing(body.apple_devices, APNS),
      },
      realm: { can_push: true, expected_end_timestamp: null },
    });
  });
  remote("push/test_notification", (body, reply) => {
    const known = tokens.some(
      (t) => t.token === body.token && t.kind === body.token_kind && t.userUuid === body.user_uuid,
    );
    if (!known)
      return error(reply, 400, "Device not recognized by the push bouncer", "INVALID_REMOTE_PUSH_DEVICE_TOKEN");
    return success(reply);
  });
  // zilencer's remote_server_post_analytics: the server's organizations, each with its uuid and owner secret
  remote("server/analytics", (body, reply) => {
    for (const realm of JSON.parse(String(body.realms)) as Array<Record<string, unknown>>) {
      const fields = [
        "id",
        "host",
        "url",
        "name",
        "org_type",
        "date_created",
        "deactivated",
        "uuid",
        "uuid_owner_secret",
      ];
      if (!fields.every((f) => f in realm)) return error(reply, 400, "Invalid realms");
      realms.set(String(realm.uuid), realm);
    }
    return success(reply);
  });
  const missingRealm = (body: Record<string, unknown>, reply: FastifyReply) =>
    realms.has(String(body.realm_uuid))
      ? undefined
      : error(reply, 400, "Organization not registered", "MISSING_REMOTE_REALM");
  // zilencer's register_remote_push_device for E2EE: the registration opened with the bouncer's private key
  remote("push/e2ee/register", (body, reply) => {
    if (missingRealm(body, reply)) return reply;
    if (body.bouncer_public_key !== b64(keys.publicKey)) {
      return error(reply, 400, "Invalid bouncer_public_key", "INVALID_BOUNCER_PUBLIC_KEY");
    }
    let registration: { token: string; token_kind: string; timestamp: number };
    try {
      registration = JSON.parse(
        sodium.to_string(
          sodium.crypto_box_seal_open(unb64(String(body.encrypted_push_registration)), keys.publicKey, keys.privateKey),
        ),
      );
    } catch {
      return error(reply, 400, "Invalid encrypted_push_registration", "INVALID_ENCRYPTED_PUSH_REGISTRATION");
    }
    if (Date.now() / 1000 - registration.timestamp > 24 * 3600) {
      return error(reply, 400, "Request expired", "REQUEST_EXPIRED");
    }
    const existing = devices.find((d) => d.token === registration.token);
    const deviceId = existing?.deviceId ?? nextDeviceId++;
    if (!existing) {
      devices.push({
        deviceId,
        realmUuid: String(body.realm_uuid),
        pushAccountId: Number(body.push_account_id),
        token: registration.token,
        tokenKind: registration.token_kind,
      });
    }
    return success(reply, { device_id: deviceId });
  });
  // zilencer's remote_server_send_e2ee_push_notification: JSON; devices it does not have are to be deleted
  remote("push/e2ee/notify", (body, reply) => {
    if (missingRealm(body, reply)) return reply;
    const pushRequests = body.push_requests as Array<{ device_id: number; http_headers?: unknown }>;
    const known = pushRequests.filter((r) => devices.some((d) => d.deviceId === r.device_id));
    return success(reply, {
      android_successfully_sent_count: known.filter((r) => !r.http_headers).length,
      apple_successfully_sent_count: known.filter((r) => r.http_headers).length,
      delete_device_ids: pushRequests.filter((r) => !known.includes(r)).map((r) => r.device_id),
      realm_push_status: { can_push: true, expected_end_timestamp: null },
    });
  });

  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const received = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint).map((r) => r.body);
  return {
    accepted: (endpoint) => requests.filter((r) => r.endpoint === endpoint && !r.failed).map((r) => r.body),
    get failed() {
      return requests.filter((r) => r.failed).length;
    },
    url,
    orgId,
    orgKey,
    env: { PUSH_NOTIFICATION_BOUNCER_URL: url, ZULIP_ORG_ID: orgId, ZULIP_ORG_KEY: orgKey },
    publicKey: b64(keys.publicKey),
    requests,
    devices,
    realms,
    received,
    waitFor: async (endpoint, count = 1) => {
      const deadline = Date.now() + 20_000;
      while (received(endpoint).length < count) {
        if (Date.now() > deadline)
          throw new Error(`${count} requests to ${endpoint} never came: ${received(endpoint).length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received(endpoint);
    },
    failNext: (count, status = 503) => {
      failing = { count, status };
    },
    holdNext: (endpoint) => {
      let release = () => undefined as void;
      holds.set(endpoint, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    },
    sealRegistration: (registration) =>
      b64(
        sodium.crypto_box_seal(
          JSON.stringify({ timestamp: Math.floor(Date.now() / 1000), ...registration }),
          keys.publicKey,
        ),
      ),
    dropDevice: (deviceId) => {
      const at = devices.findIndex((d) => d.deviceId === deviceId);
      if (at >= 0) devices.splice(at, 1);
    },
    close: () => app.close(),
  };
}
