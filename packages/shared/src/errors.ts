/**
 * The one error type that crosses the bus. Services throw it; the bus carries
 * {code, msg, status, extra}; the gateway renders Zulip's
 * {"result":"error","msg":...,"code":...,...extra} with `status`.
 */
export type ErrorExtra = Record<string, unknown>;

export interface WireError {
  code: string;
  msg: string;
  status: number;
  extra?: ErrorExtra;
}

export class ZulipError extends Error {
  constructor(
    readonly code: string,
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

export const unauthorized = (msg = "Not logged in: API authentication or user session required") =>
  new ZulipError("UNAUTHORIZED", msg, 401);

export const internalError = (): ZulipError => new ZulipError("INTERNAL_SERVER_ERROR", "Internal server error", 500);
