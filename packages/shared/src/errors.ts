import { z } from "zod";

/**
 * Every error code a reply can carry: Zulip's ErrorCode enum
 * (zerver/lib/exceptions.py) plus the three the bus adds for infrastructure
 * failures. A code outside this list does not compile.
 */
export const ERROR_CODES = [
  "BAD_REQUEST",
  "REQUEST_VARIABLE_MISSING",
  "REQUEST_VARIABLE_INVALID",
  "INVALID_JSON",
  "BAD_IMAGE",
  "REALM_UPLOAD_QUOTA",
  "BAD_NARROW",
  "CANNOT_DEACTIVATE_LAST_USER",
  "STREAM_DOES_NOT_EXIST",
  "UNAUTHORIZED_PRINCIPAL",
  "BAD_EVENT_QUEUE_ID",
  "INVITATION_FAILED",
  "INVALID_PUSH_DEVICE_TOKEN",
  "INVALID_REMOTE_PUSH_DEVICE_TOKEN",
  "INVALID_MARKDOWN_INCLUDE_STATEMENT",
  "REQUEST_CONFUSING_VAR",
  "INVALID_API_KEY",
  "UNAUTHENTICATED_USER",
  "NONEXISTENT_SUBDOMAIN",
  "RATE_LIMIT_HIT",
  "USER_DEACTIVATED",
  "REALM_DEACTIVATED",
  "PASSWORD_AUTH_DISABLED",
  "PASSWORD_RESET_REQUIRED",
  "AUTHENTICATION_FAILED",
  "UNAUTHORIZED",
  "REQUEST_TIMEOUT",
  "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
  "REACTION_ALREADY_EXISTS",
  "REACTION_DOES_NOT_EXIST",
  "SERVER_NOT_READY",
  "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
  "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
  "CANNOT_DEACTIVATE_GROUP_IN_USE",
  "EXPECTATION_MISMATCH",
  "PUSH_SERVICE_NOT_CONFIGURED",
  "INVALID_BOUNCER_PUBLIC_KEY",
  "CHANNEL_ALREADY_EXISTS",
  "NO_ACTIVE_PUSH_DEVICE",
  "FAILED_TO_CONNECT_BOUNCER",
  "INTERNAL_SERVER_ERROR_ON_BOUNCER",
  "ADMIN_ACTION_REQUIRED",
  // this server's infrastructure failures (a service is down, slow, or failed)
  "SERVICE_UNAVAILABLE",
  "GATEWAY_TIMEOUT",
  "INTERNAL_SERVER_ERROR",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Fields beside msg and code in an error reply (e.g. `var_name`, `queue_id`). */
export type ErrorExtra = Record<string, unknown>;

/** An error as it crosses the bus: the gateway renders it as Zulip's error reply with `status`. */
export const wireErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  msg: z.string(),
  status: z.number().int(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;

/**
 * The one error type that crosses the bus. Services throw it; the gateway
 * renders Zulip's {"result":"error","msg":...,"code":...,...extra} with `status`.
 */
export class ZulipError extends Error {
  constructor(
    readonly code: ErrorCode,
    msg: string,
    readonly status = 400,
    readonly extra: ErrorExtra = {},
  ) {
    super(msg);
    this.name = "ZulipError";
  }

  get msg(): string {
    return this.message;
  }

  toWire(): WireError {
    return { code: this.code, msg: this.message, status: this.status, extra: this.extra };
  }

  static fromWire(w: WireError): ZulipError {
    return new ZulipError(w.code, w.msg, w.status, w.extra ?? {});
  }
}

/** Zulip's JsonableError with the default code: HTTP 400 BAD_REQUEST. */
export const badRequest = (msg: string, extra?: ErrorExtra): ZulipError =>
  new ZulipError("BAD_REQUEST", msg, 400, extra);

export const missingArgument = (varName: string): ZulipError =>
  new ZulipError("REQUEST_VARIABLE_MISSING", `Missing '${varName}' argument`, 400, {
    var_name: varName,
  });

/** Zulip answers "must be an organization administrator" refusals with UNAUTHORIZED_PRINCIPAL. */
export const mustBeAdmin = (): ZulipError =>
  new ZulipError("UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator", 400);

/** Likewise for owners' refusals. */
export const mustBeOwner = (): ZulipError =>
  new ZulipError("UNAUTHORIZED_PRINCIPAL", "Must be an organization owner", 400);

export const unauthorized = (msg = "Not logged in: API authentication or user session required") =>
  new ZulipError("UNAUTHORIZED", msg, 401);

export const internalError = (): ZulipError => new ZulipError("INTERNAL_SERVER_ERROR", "Internal server error", 500);

export const serviceUnavailable = (msg: string): ZulipError => new ZulipError("SERVICE_UNAVAILABLE", msg, 503);

const MONGO_CURSOR_NOT_FOUND = 43;
/** Node's socket errors: a write to a connection the server closed as it stopped (EPIPE), and the like. */
const SOCKET_ERROR_CODES = new Set(["EPIPE", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT"]);

/** Errors of the database driver and of NATS that mean "not reachable right now", not "this request is wrong". */
const TRANSIENT_ERROR_NAMES = new Set([
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoNotConnectedError",
  "MongoPoolClearedError",
  "MongoTopologyClosedError",
  "TimeoutError",
  "NoRespondersError",
  "ClosedConnectionError",
  "JetStreamNotEnabled",
]);

/**
 * Whether a handler failed because the database or NATS was briefly out of
 * reach (a restart, a failover): the client should try again (503), as
 * nothing in its request was at fault. A bulk write whose connection closed
 * carries the network error as its cause.
 */
export function isTransientFailure(err: unknown): boolean {
  for (let e = err as (Error & { cause?: unknown; code?: unknown }) | undefined; e; e = e.cause as typeof e) {
    if (TRANSIENT_ERROR_NAMES.has(e.name) || /connection \d+ to .* closed|ECONNREFUSED|ECONNRESET/.test(e.message)) {
      return true;
    }
    // a read's cursor that a database restart forgot (MongoDB's CursorNotFound)
    if (e.code === MONGO_CURSOR_NOT_FOUND || SOCKET_ERROR_CODES.has(e.code as string)) return true;
    if (e.cause === e) break;
  }
  return false;
}
