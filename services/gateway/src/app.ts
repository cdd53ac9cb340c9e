import multipart from "@fastify/multipart";
import { StorageType } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import type { ZodType } from "zod";
import {
  BUS_SERVICES,
  badRequest,
  busClient,
  ZulipError,
  allContracts,
  RawJson,
  decodeParams,
  healthContract,
  identity,
  identityEvents,
  subscribeEvent,
  unauthorized,
  type Actor,
  type Config,
  type Contract,
  type Logger,
  type RealmRef,
} from "@teamchat/shared";
import { parseForm, registerBodyParsers } from "./body-parsers";
import { clientName } from "./client-name";
import { AuthCache } from "./auth-cache";
import { RateLimiter, type RateDecision } from "./rate-limiter";
import { RealmResolver } from "./realm-cache";

export const API_PREFIX = "/api/v1";

export interface GatewayDeps {
  nc: NatsConnection;
  config: Config;
  log: Logger;
  contracts?: Contract[];
}

interface Route {
  contract: Contract;
  /** names of the path parameters, in order */
  pathNames: string[];
}

const WWW_AUTHENTICATE = 'Basic realm="zulip"';

const notFound = () => new ZulipError("BAD_REQUEST", "Not Found", 404);

/** Composition root of the gateway: real NATS in, a ready (not listening) Fastify app out. */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { nc, config, log } = deps;
  const bus = busClient(nc, config);
  const realms = new RealmResolver(bus);
  const authCache = new AuthCache(config.AUTH_CACHE_SECONDS * 1000);
  // Memory storage: counters need not survive a NATS restart, and file writes cost ~1.5x per request.
  const kv = await new Kvm(nc).create("rate_limits", {
    ttl: config.RATE_LIMIT_WINDOW_SECONDS * 2 * 1000,
    storage: StorageType.Memory,
  });
  const limiter = new RateLimiter(kv, config.RATE_LIMIT_REQUESTS, config.RATE_LIMIT_WINDOW_SECONDS);

  // No queue group: every gateway instance keeps its own cache.
  const invalidations = subscribeEvent(nc, identityEvents.authInvalidated, ({ userId }) => authCache.dropUser(userId), {
    log,
  });

  const app = Fastify({
    // Per-request access lines are Fastify's at info level; keep them out, errors stay in.
    loggerInstance: log.child({}, { level: "warn" }) as FastifyBaseLogger,
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    bodyLimit: config.REQUEST_BODY_LIMIT_MIB * 1024 * 1024,
    querystringParser: parseForm,
  });
  app.addHook("onClose", async () => invalidations.unsubscribe());
  // The id in every log line of every service for this request; clients can quote it.
  app.addHook("onRequest", async (req, reply) => void reply.header("x-request-id", req.id));
  registerBodyParsers(app, config.JSON_DEPTH_LIMIT);
  await app.register(multipart, { attachFieldsToBody: "keyValues", limits: { fileSize: 25 * 1024 * 1024 } });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ZulipError) return sendError(reply, err);
    const { statusCode = 500, message } = err as Error & { statusCode?: number };
    // A multipart body busboy cannot read (no boundary, cut short) fails before any body is
    // attached; its errors carry no status. The client's fault, as Django's MultiPartParserError is.
    if (statusCode === 500 && req.isMultipart() && req.body == null) {
      return sendError(reply, badRequest(`Malformed multipart body: ${message}`));
    }
    if (statusCode >= 500) {
      req.log.error({ err }, "request failed");
      return sendError(reply, new ZulipError("INTERNAL_SERVER_ERROR", "Internal server error", 500));
    }
    // Fastify's own refusals: unparsable body, too large, bad content type.
    return sendError(reply, new ZulipError("BAD_REQUEST", message, statusCode));
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, notFound()));

  async function authenticate(req: FastifyRequest, realm: RealmRef): Promise<Actor> {
    const header = req.headers.authorization;
    if (!header) throw unauthorized();
    const match = /^Basic\s+(\S+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, "base64").toString("utf8") : "";
    const colon = decoded.indexOf(":");
    if (colon < 1) throw unauthorized("Invalid authorization header for basic auth");
    const email = decoded.slice(0, colon);
    const apiKey = decoded.slice(colon + 1);
    const cacheKey = AuthCache.keyOf(realm.id, email, apiKey);
    const cached = authCache.get(cacheKey);
    if (cached) return cached;
    const actor = await bus.request(
      identity.authenticate,
      { email, api_key: apiKey },
      { realm, actor: null, requestId: req.id },
    );
    authCache.set(cacheKey, actor);
    return actor;
  }

  function applyRateLimit(reply: FastifyReply, d: RateDecision): void {
    reply.header("X-RateLimit-Limit", d.limit);
    reply.header("X-RateLimit-Remaining", d.remaining);
    reply.header("X-RateLimit-Reset", d.reset);
    if (!d.allowed) {
      reply.header("Retry-After", Math.ceil(d.retryAfter));
      throw new ZulipError("RATE_LIMIT_HIT", "API usage exceeded rate limit", 429, { "retry-after": d.retryAfter });
    }
  }

  async function serve(route: Route, req: FastifyRequest, reply: FastifyReply, pathValues: string[]) {
    const { contract } = route;
    const realm = await realms.resolve(req.headers.host ?? "", req.id);
    const actor = contract.http!.auth === "user" ? await authenticate(req, realm) : null;
    applyRateLimit(
      reply,
      await limiter.hit(actor ? `user.${actor.realmId}.${actor.userId}` : `ip.${req.ip.replace(/[.:]/g, "_")}`),
    );
    const { client: clientParam, ...raw }: Record<string, unknown> = {
      ...(req.query as object),
      ...(isObject(req.body) ? req.body : {}),
    };
    // Zulip takes path parameters from the path only: a field of the same name (the Python bindings send
    // message_id in update_message's and add_reaction's body) is ignored and listed as such.
    const shadowed = route.pathNames.filter((name) => name in raw);
    route.pathNames.forEach((name, i) => (raw[name] = pathValues[i]));
    for (const [header, name] of Object.entries(contract.http!.headers ?? {})) {
      const value = req.headers[header];
      if (typeof value === "string") raw[name] = value;
    }
    const decoded = decodeParams(contract.params, raw, config.JSON_DEPTH_LIMIT);
    const { params } = decoded;
    const ignored = [...decoded.ignored, ...shadowed].sort();
    const client = clientName(clientParam, req.headers["user-agent"]);
    const data = await bus.forward(contract, params, { realm, actor, client, requestId: req.id });
    const success = {
      result: "success",
      msg: "",
      ...(ignored.length > 0 && { ignored_parameters_unsupported: ignored }),
    };
    return reply.type("application/json; charset=utf-8").send(RawJson.merge([success, data]).json);
  }

  for (const { method, url, routes } of groupRoutes(deps.contracts ?? allContracts)) {
    app.route({
      method,
      url,
      handler: async (req, reply) => {
        const pathValues = Object.values(req.params as Record<string, string>);
        return serve(pickRoute(routes, pathValues, config.JSON_DEPTH_LIMIT), req, reply, pathValues);
      },
    });
  }

  app.get("/health", async (req, reply) => {
    const checks = await Promise.all(
      BUS_SERVICES.map(async (s) => {
        try {
          await bus.request(healthContract(s), {}, { realm: null, actor: null, requestId: req.id });
          return [s, "ok"] as const;
        } catch (err) {
          return [s, (err as Error).message] as const;
        }
      }),
    );
    const services = Object.fromEntries(checks);
    const natsOk = !nc.isClosed();
    const ok = natsOk && checks.every(([, v]) => v === "ok");
    return reply
      .status(ok ? 200 : 503)
      .send({ status: ok ? "ok" : "degraded", nats: natsOk ? "ok" : "closed", services });
  });

  return app;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function sendError(reply: FastifyReply, err: ZulipError): FastifyReply {
  if (err.status === 401) reply.header("WWW-Authenticate", WWW_AUTHENTICATE);
  return reply.status(err.status).send({ result: "error", msg: err.message, code: err.code, ...err.extra });
}

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
    const url = API_PREFIX + contract.http.path.replace(/\{[^}]+\}/g, () => `:p${i++}`);
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
function pickRoute(routes: Route[], pathValues: string[], maxJsonDepth: number): Route {
  const route = routes.find((r) =>
    r.pathNames.every((name, i) => {
      try {
        const { params } = decodeParams(r.contract.params, { [name]: pathValues[i] }, maxJsonDepth);
        return (r.contract.params.shape[name] as unknown as ZodType).safeParse(params[name]).success;
      } catch {
        return false;
      }
    }),
  );
  if (!route) throw notFound();
  return route;
}
