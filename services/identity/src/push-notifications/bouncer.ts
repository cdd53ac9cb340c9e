import { createHash, createHmac } from "node:crypto";
import { ZULIP_VERSION, ZulipError } from "@teamchat/shared";

/** Zulip's PushBouncerSession timeout: a request the bouncer has not answered by then is retried later. */
const BOUNCER_TIMEOUT_MS = 15_000;

/**
 * The bouncer could not be reached or failed (Zulip's
 * PushNotificationBouncerRetryLaterError): network errors and 5xx answers.
 * Work is tried again later; a request of the API answers 502.
 */
export class BouncerRetryLaterError extends ZulipError {
  constructor(
    msg: string,
    /** a 5xx answer (Zulip's PushNotificationBouncerServerError), not a network failure */
    readonly serverError: boolean,
  ) {
    super("BAD_REQUEST", msg, 502);
  }
}

/**
 * The bouncer refused this server (Zulip's PushNotificationBouncerError for
 * INVALID_ZULIP_SERVER and unexpected answers, PushNotificationsDisallowedByBouncerError,
 * MissingRemoteRealmError): the administrator has to act; retrying does not help.
 */
export class BouncerConfigurationError extends Error {
  constructor(
    msg: string,
    readonly code: string | undefined,
  ) {
    super(msg);
    this.name = "BouncerConfigurationError";
  }
}

/** The codes with which the bouncer refuses the server rather than the request (Zulip's send_to_push_bouncer). */
const SERVER_REFUSALS = new Set(["INVALID_ZULIP_SERVER", "PUSH_NOTIFICATIONS_DISALLOWED", "MISSING_REMOTE_REALM"]);

/** How a request ended, for the metrics: ok, retry_later (network or 5xx), refused (4xx). */
export type BouncerOutcome = "ok" | "retry_later" | "refused";

export interface BouncerSettings {
  /** PUSH_NOTIFICATION_BOUNCER_URL */
  url: string;
  /** ZULIP_ORG_ID: this server's uuid at the bouncer */
  orgId: string;
  /** ZULIP_ORG_KEY */
  orgKey: string;
}

/**
 * The client of Zulip's push notification service (zerver/lib/remote_server.py's
 * send_to_push_bouncer): requests to `/api/v1/remotes/<endpoint>` with the
 * server's registration as HTTP Basic credentials, form-encoded or JSON as
 * Zulip sends each endpoint, errors sorted as Zulip sorts them.
 */
export class PushBouncer {
  constructor(
    private readonly settings: BouncerSettings,
    private readonly onRequest: (endpoint: string, outcome: BouncerOutcome) => void,
  ) {}

  /** The server's uuid, sent as `server_uuid` by the legacy registration endpoints. */
  get serverUuid(): string {
    return this.settings.orgId;
  }

  /** An organization's uuid at the bouncer (Zulip's Realm.uuid). */
  realmUuid(realmId: number): string {
    return bouncerUuid(this.settings.orgId, "realm", realmId);
  }

  /** A user's uuid at the bouncer (Zulip's UserProfile.uuid). */
  userUuid(realmId: number, userId: number): string {
    return bouncerUuid(this.settings.orgId, "user", realmId, userId);
  }

  /**
   * The secret that proves this server owns the organization's uuid (Zulip's
   * Realm.uuid_owner_secret): derived from the server's key, which only it knows.
   */
  realmOwnerSecret(realmId: number): string {
    return `zuliprealm_${createHmac("sha256", this.settings.orgKey).update(`realm:${realmId}`).digest("hex").slice(0, 32)}`;
  }

  /** Zulip's send_to_push_bouncer with a dict: form-encoded fields. */
  postForm(endpoint: string, fields: Record<string, string | number>): Promise<Record<string, unknown>> {
    const body = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]));
    return this.post(endpoint, body.toString(), "application/x-www-form-urlencoded");
  }

  /** Zulip's send_json_to_push_bouncer. */
  postJson(endpoint: string, data: object): Promise<Record<string, unknown>> {
    return this.post(endpoint, JSON.stringify(data), "application/json");
  }

  private async post(endpoint: string, body: string, contentType: string): Promise<Record<string, unknown>> {
    try {
      const reply = await this.send(endpoint, body, contentType);
      this.onRequest(endpoint, "ok");
      return reply;
    } catch (err) {
      this.onRequest(endpoint, err instanceof BouncerRetryLaterError ? "retry_later" : "refused");
      throw err;
    }
  }

  private async send(endpoint: string, body: string, contentType: string): Promise<Record<string, unknown>> {
    const { url, orgId, orgKey } = this.settings;
    let res: Response;
    try {
      res = await fetch(new URL(`/api/v1/remotes/${endpoint}`, url), {
        method: "POST",
        body,
        headers: {
          "Content-Type": contentType,
          Authorization: `Basic ${Buffer.from(`${orgId}:${orgKey}`).toString("base64")}`,
          "User-Agent": `ZulipServer/${ZULIP_VERSION}`,
        },
        signal: AbortSignal.timeout(BOUNCER_TIMEOUT_MS),
      });
    } catch (err) {
      const name = err instanceof Error && err.name === "TimeoutError" ? "Timeout" : "ConnectionError";
      throw new BouncerRetryLaterError(`${name} while trying to connect to push notification bouncer`, false);
    }
    if (res.status >= 500) {
      throw new BouncerRetryLaterError(`Received ${res.status} from push notification bouncer`, true);
    }
    const text = await res.text();
    if (res.status >= 400) {
      const { msg, code } = parseError(text);
      if (code !== undefined && SERVER_REFUSALS.has(code)) {
        throw new BouncerConfigurationError(`Push notifications bouncer error: ${msg}`, code);
      }
      if (endpoint === "push/test_notification" && code === "INVALID_REMOTE_PUSH_DEVICE_TOKEN") {
        throw new ZulipError("INVALID_REMOTE_PUSH_DEVICE_TOKEN", "Device not recognized by the push bouncer");
      }
      // a client error (an unknown token, a key the bouncer does not have): the caller's to report
      throw new BouncerClientError(msg, code);
    }
    if (res.status !== 200) {
      throw new BouncerConfigurationError(
        `Push notification bouncer returned unexpected status code ${res.status}`,
        undefined,
      );
    }
    return JSON.parse(text) as Record<string, unknown>;
  }
}

/** A 4xx answer about the request itself (Zulip raises it as a JsonableError with the bouncer's message). */
export class BouncerClientError extends ZulipError {
  constructor(
    msg: string,
    readonly bouncerCode: string | undefined,
  ) {
    super("BAD_REQUEST", msg);
  }
}

function parseError(text: string): { msg: string; code?: string } {
  try {
    const parsed = JSON.parse(text) as { msg?: unknown; code?: unknown };
    return {
      msg: typeof parsed.msg === "string" ? parsed.msg : text,
      code: typeof parsed.code === "string" ? parsed.code : undefined,
    };
  } catch {
    return { msg: `Push notification bouncer returned an unreadable error: ${text.slice(0, 200)}` };
  }
}

/**
 * A stable UUID for an organization or user of this server at the bouncer
 * (Zulip's Realm.uuid and UserProfile.uuid, which this server does not store):
 * derived from the server's registration and the ids, so every instance and
 * restart names them alike and no two servers collide.
 */
function bouncerUuid(orgId: string, ...ids: Array<string | number>): string {
  const hex = createHash("sha256")
    .update([orgId, ...ids].join(":"))
    .digest("hex");
  // laid out as a version 4, variant 1 UUID, as the bouncer validates realm_uuid
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
