import { z } from "zod";
import { actorSchema, realmRefSchema } from "./actor";

/**
 * How an operation is reached over HTTP. The gateway registers one route per
 * contract that has this; internal-only operations leave it out.
 * - auth "user": Basic auth required; "none": anonymous (credentials, if sent, are not checked).
 * - path uses Zulip's `{param}` notation, relative to /api/v1.
 */
export interface HttpBinding {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  path: string;
  auth: "user" | "none";
  /**
   * Where paths differ only in parameter names (`/users/{user_id}`, `/users/{email}`),
   * the request goes to the lowest precedence whose path parameters accept the
   * values. Every contract of such a group declares a distinct one.
   */
  precedence?: number;
  /**
   * Whether the gateway may ask again after a 503 (a service briefly out of
   * reach): GETs always may; a write only when this says its parameters make
   * a second attempt change nothing (a send with an idempotency key).
   */
  retrySafe?: (params: Record<string, unknown>) => boolean;
  /** Request headers passed on as parameters: lower-case header name → parameter name (the header wins). */
  headers?: Record<string, string>;
  /**
   * The parameter that gets the client's address (the connection's, as the rate
   * limiter counts it; Zulip's REMOTE_ADDR). Only the gateway sets it: a request
   * field of that name is ignored and listed as such, as a path parameter's is.
   */
  clientAddress?: string;
  /**
   * For operations that take files (multipart): the owning service's put-chunk
   * operation (`fileContracts` in files.ts). The gateway stores each file of the
   * request through it and passes the references as the `files` parameter.
   */
  upload?: Contract;
  /**
   * An operation of a service above the owner, which the owner may not call
   * (docs/architecture.md): the gateway asks it after the owner's reply, with
   * the parameters in the reply's `follow_up` field, which clients never see.
   * Its failure is logged; the reply stands.
   */
  followUp?: Contract;
  /**
   * Operations of other services whose replies complete the owner's (POST
   * /register: the state parts of identity, realm-config and messaging). The
   * gateway asks each at once with the `params` of the reply's `completion`
   * field (which clients never see) and merges their replies into the owner's
   * as bytes, so that a large state crosses the bus once rather than through
   * the owner too. If one fails, the gateway asks `undo` with the completion's
   * `undo` parameters and answers with that failure: never a partial reply.
   */
  completedBy?: { parts: readonly Contract[]; undo: Contract };
  /** The last path parameter takes the rest of the path, slashes included (Zulip's `<path:...>`). */
  restOfPath?: true;
  /**
   * "instance": the rate limit counts these requests in each gateway's memory,
   * apart from the shared count, as Zulip counts the requests its Tornado
   * process serves (the event queue's) in that process's memory.
   */
  rateLimit?: "instance";
  /**
   * A long wait's answer from a gateway that is stopping, given at once instead
   * of the service's reply (the operation's reply fields): without it, the
   * gateway's shutdown would wait for the slowest parked request. Undefined
   * for these parameters: the reply is waited for.
   */
  answerWhenStopping?: (params: Record<string, unknown>) => object | undefined;
}

export type ParamsSchema = z.ZodObject<z.ZodRawShape>;

export interface Contract<P extends ParamsSchema = ParamsSchema, R extends z.ZodType = z.ZodType> {
  /** `<service>.<resource>.<verb>` */
  subject: string;
  http?: HttpBinding;
  /** Operation parameters, as Zulip names them (path parameters included). */
  params: P;
  /** The operation's own reply fields (result/msg are added by the gateway). */
  reply: R;
  /** Bus timeout; long-polls need more than the default. */
  timeoutMs?: number;
  /**
   * A request whose caller must learn before the timeout that the instance
   * serving it died (a parked long-poll; a send, which a retry with its key
   * finishes elsewhere): that instance says every `everyMs` that it still works
   * on it (BusServer), and a caller that hears nothing for three of those
   * answers 503 (BusClient), which the gateway asks again for where that is safe.
   */
  keepAlive?: { everyMs: number };
  /**
   * Its replies may carry shared pieces (bus/shared-pieces.ts): a caller that keeps pieces and holds
   * none of the organization's sends the first such request alone, and the others with what it brought.
   */
  sharedPieces?: true;
}

export const defineContract = <P extends ParamsSchema, R extends z.ZodType>(c: Contract<P, R>): Contract<P, R> => c;

/** What travels on the bus for every request. */
export const envelopeSchema = z.object({
  realm: realmRefSchema.nullable(),
  actor: actorSchema.nullable(),
  client: z.string().optional(),
  params: z.unknown(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export type ParamsOf<C extends Contract> = z.output<C["params"]>;
export type ParamsIn<C extends Contract> = z.input<C["params"]>;
export type ReplyOf<C extends Contract> = z.output<C["reply"]>;

/** An empty reply: `{"result":"success","msg":""}`. */
export const emptyReply = z.object({});

/** The field of an owner's reply that HttpBinding.completedBy reads: its parts' parameters and its undo's. */
export const completionSchema = z.object({
  params: z.record(z.string(), z.unknown()),
  undo: z.record(z.string(), z.unknown()),
});
export type Completion = z.infer<typeof completionSchema>;

/** Every service answers `<service>.health.ping`; the gateway's /health asks each. */
export const healthContract = (service: string) =>
  defineContract({
    subject: `${service}.health.ping`,
    params: z.object({}),
    reply: z.object({ service: z.string() }),
    timeoutMs: 2_000,
  });
