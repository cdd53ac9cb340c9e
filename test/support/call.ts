/**
 * Typed calls through the contracts (packages/shared/src/contracts), encoded
 * on the wire exactly as ApiClient encodes (so as Zulip's clients do), and one
 * assertion for Zulip's error replies.
 */
import type { Contract, ErrorCode, ParamsIn, ReplyOf } from "@teamchat/shared";
import { encodeValue, type ApiClient, type ApiResponse, type Body } from "@teamchat/shared/src/testing/api";

/** A success reply: the operation's own fields and Zulip's result/msg. */
export type SuccessReply<C extends Contract> = ReplyOf<C> & { result: "success"; msg: string };

/** An error reply to call(): the status and the whole body (code, msg and the operation's extra fields). */
export class ZulipErrorReply extends Error {
  readonly status: number;
  readonly code: string;
  readonly msg: string;
  readonly body: Body;

  constructor(request: string, res: ApiResponse) {
    super(`${request} → ${res.status} ${JSON.stringify(res.body)}`);
    this.name = "ZulipErrorReply";
    this.status = res.status;
    this.code = res.body.code as string;
    this.msg = res.body.msg as string;
    this.body = res.body;
  }
}

/**
 * `contract`'s HTTP operation with `params`: path parameters (`{name}`) filled in
 * and left out of the body, GET parameters in the query string, others
 * form-encoded with non-strings as JSON, or multipart when a parameter is a
 * file (a Blob: an upload operation's file part, as clients send it). ApiClient checks a 200 reply against
 * zulip.yaml; any other status rejects with ZulipErrorReply.
 */
export async function callContract<C extends Contract>(
  api: ApiClient,
  contract: C,
  params: ParamsIn<C>,
): Promise<SuccessReply<C>> {
  if (!contract.http) throw new Error(`${contract.subject} has no HTTP binding: ask the bus instead`);
  const { method, path: template } = contract.http;
  const rest: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (rest[name] === undefined) throw new Error(`${contract.subject}: path parameter ${name} is missing`);
    const value = encodeURIComponent(encodeValue(rest[name]));
    delete rest[name];
    return value;
  });
  const encoding =
    method === "GET" ? "query" : Object.values(rest).some((v) => v instanceof Blob) ? "multipart" : "form";
  const res = await api.request(method, path, rest, encoding);
  if (res.status !== 200) throw new ZulipErrorReply(`${method} ${path}`, res);
  return res.body as SuccessReply<C>;
}

export interface ExpectedZulipError {
  status: number;
  code: ErrorCode;
  msg: string;
  /** the error's own fields (e.g. `stream`, `var_name`), beyond result/msg/code */
  [extra: string]: unknown;
}

/** The most common expectation: HTTP 400 with Zulip's message (and BAD_REQUEST unless said otherwise). */
export const badRequestError = (msg: string, code: ErrorCode = "BAD_REQUEST"): ExpectedZulipError => ({
  status: 400,
  code,
  msg,
});

const isApiResponse = (v: unknown): v is ApiResponse =>
  typeof v === "object" && v !== null && "status" in v && "body" in v && "headers" in v;

/**
 * Asserts a Zulip error: the status and the exact body `{result: "error", code,
 * msg, ...extra}`, nothing more. Takes a call() (which rejects) or a raw
 * ApiClient response (or its promise).
 */
export async function expectZulipError(
  actual: Promise<unknown> | ApiResponse,
  { status, code, msg, ...extra }: ExpectedZulipError,
): Promise<void> {
  let value: unknown;
  try {
    value = await actual;
  } catch (err) {
    if (!(err instanceof ZulipErrorReply)) throw err;
    value = err;
  }
  if (!(value instanceof ZulipErrorReply) && !isApiResponse(value)) {
    throw new Error(`expected a Zulip error reply, got a success: ${JSON.stringify(value)}`);
  }
  const got = { status: value.status, body: value.body };
  expect(got).toEqual({ status, body: { result: "error", code, msg, ...extra } });
}
