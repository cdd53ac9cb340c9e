import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodType } from "zod";
import {
  RawJson,
  ZulipError,
  decodeParams,
  type BusClient,
  type CallContext,
  type Completion,
  type Contract,
  type HttpBinding,
  type Logger,
} from "@teamchat/shared";
import { clientName } from "../client-name";
import { notFound } from "../error-replies";
import { UploadedFile, storeFiles } from "../files";
import type { AcceptsPath } from "../method-not-allowed";
import type { InstanceRateLimiter, RateDecision, RateLimiter } from "../rate-limiter";
import type { RequestContextOf } from "../request-context";
import { retryingRead } from "../retrying-read";
import type { ReplyUnlessStopping } from "../stoppable-replies";

const API_PREFIX = "/api/v1";
/** Replies from this size on are written piece by piece. */
const STREAMED_REPLY_BYTES = 16 * 1024;

interface Route {
  contract: Contract;
  /** names of the path parameters, in order */
  pathNames: string[];
}

/**
 * Zulip's REST API: one route per contract's HTTP binding, its request
 * authenticated, rate-limited, decoded and forwarded to the owning service.
 * Returns whether a route takes a path's values, for the 405 answers.
 */
export function registerApiRoutes(
  app: FastifyInstance,
  deps: {
    bus: BusClient;
    log: Logger;
    contracts: Contract[];
    maxJsonDepth: number;
    contextOf: RequestContextOf;
    limiter: RateLimiter;
    instanceLimiter: InstanceRateLimiter;
    http: { rateLimited(): void };
    replyUnlessStopping: ReplyUnlessStopping;
  },
): AcceptsPath {
  const { bus, log, maxJsonDepth, contextOf, limiter, instanceLimiter, http, replyUnlessStopping } = deps;

  function applyRateLimit(reply: FastifyReply, d: RateDecision): void {
    reply.header("X-RateLimit-Limit", d.limit);
    reply.header("X-RateLimit-Remaining", d.remaining);
    reply.header("X-RateLimit-Reset", d.reset);
    if (!d.allowed) {
      http.rateLimited();
      throw new ZulipError("RATE_LIMIT_HIT", "API usage exceeded rate limit", 429, { "retry-after": d.retryAfter });
    }
  }

  async function serve(route: Route, req: FastifyRequest, reply: FastifyReply, pathValues: string[]) {
    const { contract } = route;
    const { realm, actor, requestId } = await contextOf(req, contract.http!.auth === "user" ? "required" : "none");
    const rateKey = actor ? `user.${actor.realmId}.${actor.userId}` : `ip.${req.ip.replace(/[.:]/g, "_")}`;
    applyRateLimit(
      reply,
      contract.http!.rateLimit === "instance" ? instanceLimiter.hit(rateKey) : await limiter.hit(rateKey),
    );
    const { client: clientParam, ...raw }: Record<string, unknown> = {
      ...(req.query as object),
      ...(isObject(req.body) ? req.body : {}),
    };
    const uploaded = takeUploadedFiles(raw);
    // Zulip takes path parameters from the path only: a field of the same name (the Python bindings send
    // message_id in update_message's and add_reaction's body) is ignored and listed as such. So is a field
    // named as the client's address, which the client must not choose.
    const { clientAddress } = contract.http!;
    const setHere = clientAddress ? [...route.pathNames, clientAddress] : route.pathNames;
    const shadowed = setHere.filter((name) => name in raw);
    route.pathNames.forEach((name, i) => (raw[name] = pathValues[i]));
    if (clientAddress) raw[clientAddress] = req.ip;
    for (const [header, name] of Object.entries(contract.http!.headers ?? {})) {
      const value = req.headers[header];
      if (typeof value === "string") raw[name] = value;
    }
    const decoded = decodeParams(contract.params, raw, maxJsonDepth);
    const { params } = decoded;
    const ignored = [...decoded.ignored, ...shadowed].sort();
    const client = clientName(clientParam, req.headers["user-agent"]);
    const ctx = { realm, actor, client, requestId };
    // Zulip reads files from request.FILES only: the gateway's references replace any field of that name
    if (contract.http!.upload) params.files = await storeFiles(bus, contract.http!.upload, uploaded, ctx);
    const forward = () => forwardRetryingSafely(contract, params, ctx);
    const whenStopping = contract.http!.answerWhenStopping?.(params);
    const answer = whenStopping ? await replyUnlessStopping(forward, whenStopping) : await forward();
    const { followUp: next, completedBy } = contract.http!;
    let data = answer;
    if (next && answer instanceof RawJson) data = await followUp(next, answer, ctx);
    else if (completedBy && answer instanceof RawJson) data = await complete(completedBy, answer, ctx);
    const success = {
      result: "success",
      msg: "",
      ...(ignored.length > 0 && { ignored_parameters_unsupported: ignored }),
    };
    const body = RawJson.merge([success, data]);
    reply.type("application/json; charset=utf-8").header("content-length", body.length);
    // a large reply (a register's state) is written as the pieces that came off the bus, not first
    // copied into one more buffer of its size; a small one in one piece, cheaper than a stream
    return reply.send(body.length < STREAMED_REPLY_BYTES ? body.bytes : Readable.from(body.chunks));
  }

  /**
   * The owner's reply without its `follow_up`, once the operation of a service
   * above the owner that it names has been asked (HttpBinding.followUp). A
   * failure there is logged: what the owner did stands, as its answer says.
   */
  async function followUp(next: Contract, answer: RawJson, ctx: CallContext): Promise<RawJson> {
    const { follow_up: params, ...reply } = JSON.parse(answer.json) as { follow_up: Record<string, unknown> };
    try {
      await bus.request(next, params, ctx);
    } catch (err) {
      log.error({ err, subject: next.subject, requestId: ctx.requestId }, "follow-up of the reply failed");
    }
    return new RawJson(JSON.stringify(reply));
  }

  /**
   * The owner's reply without its `completion`, merged with the replies of the
   * operations that complete it (HttpBinding.completedBy), as bytes; a key
   * both have is the owner's (the merged JSON has it last). If one
   * fails, the owner's work is undone before the failure is answered.
   */
  async function complete(
    by: NonNullable<HttpBinding["completedBy"]>,
    answer: RawJson,
    ctx: CallContext,
  ): Promise<RawJson> {
    const { completion, ...reply } = JSON.parse(answer.json) as { completion: Completion };
    try {
      const parts = await Promise.all(by.parts.map((part) => bus.requestJson(part, completion.params, ctx)));
      return RawJson.merge([...parts, reply]);
    } catch (err) {
      await bus.request(by.undo, completion.undo, ctx).catch((undoErr: unknown) => {
        log.error(
          { err: undoErr, subject: by.undo.subject, requestId: ctx.requestId },
          "undo of a failed completion failed",
        );
      });
      throw err;
    }
  }

  /** A read (or a write its contract says is safe to repeat), asked again while unavailable (see retryingRead). */
  async function forwardRetryingSafely(...args: Parameters<typeof bus.forward>): Promise<RawJson> {
    const [contract, params] = args;
    const safe = contract.http?.method === "GET" || contract.http?.retrySafe?.(params) === true;
    return safe ? retryingRead(() => bus.forward(...args)) : bus.forward(...args);
  }

  const apiRoutes = new Map<string, Route[]>();
  for (const { method, url, routes } of groupRoutes(deps.contracts)) {
    apiRoutes.set(`${method} ${url}`, routes);
    app.route({
      method,
      url,
      handler: async (req, reply) => {
        const pathValues = Object.values(req.params as Record<string, string>);
        const route = findRoute(routes, pathValues, maxJsonDepth);
        if (!route) throw notFound();
        return serve(route, req, reply, pathValues);
      },
    });
  }
  return (method, url, pathValues) => {
    const routes = apiRoutes.get(`${method} ${url}`);
    return !routes || findRoute(routes, pathValues, maxJsonDepth) !== undefined;
  };
}

/** Takes the multipart file parts out of the request's fields. */
function takeUploadedFiles(raw: Record<string, unknown>): UploadedFile[] {
  const files: UploadedFile[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const parts = [value].flat();
    if (!parts.some((p) => p instanceof UploadedFile)) continue;
    files.push(...parts.filter((p): p is UploadedFile => p instanceof UploadedFile));
    delete raw[name];
  }
  return files;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Contracts whose paths differ only in parameter names (`/users/{user_id}` and
 * `/users/{email}`) share one Fastify route, tried in their declared precedence.
 */
export function groupRoutes(contracts: Contract[]): Array<{ method: string; url: string; routes: Route[] }> {
  const groups = new Map<string, { method: string; url: string; routes: Route[] }>();
  for (const contract of contracts) {
    if (!contract.http) continue;
    const pathNames = [...contract.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    let i = 0;
    let url = API_PREFIX + contract.http.path.replace(/\{[^}]+\}/g, () => `:p${i++}`);
    if (contract.http.restOfPath) url = url.replace(/:p\d+$/, "*");
    const key = `${contract.http.method} ${url}`;
    const group = groups.get(key) ?? { method: contract.http.method, url, routes: [] };
    group.routes.push({ contract, pathNames });
    groups.set(key, group);
  }
  for (const { method, url, routes } of groups.values()) {
    if (routes.length === 1) continue;
    const order = routes.map((r) => r.contract.http!.precedence);
    if (order.some((p) => p === undefined) || new Set(order).size !== order.length) {
      const subjects = routes.map((r) => `${r.contract.subject} (${r.contract.http!.precedence ?? "none"})`);
      throw new Error(`${method} ${url} is shared by ${subjects.join(", ")}: give each a distinct http.precedence`);
    }
    routes.sort((a, b) => a.contract.http!.precedence! - b.contract.http!.precedence!);
  }
  return [...groups.values()];
}

/**
 * The first route, in precedence order, whose path parameters accept the
 * values; none is Zulip's 404, as its URL patterns (`<int:message_id>`) do not
 * match a segment of the wrong type.
 */
function findRoute(routes: Route[], pathValues: string[], maxJsonDepth: number): Route | undefined {
  return routes.find((r) =>
    r.pathNames.every((name, i) => {
      try {
        const { params } = decodeParams(r.contract.params, { [name]: pathValues[i] }, maxJsonDepth);
        return (r.contract.params.shape[name] as unknown as ZodType).safeParse(params[name]).success;
      } catch {
        return false;
      }
    }),
  );
}
