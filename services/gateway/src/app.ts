import multipart from "@fastify/multipart";
import { StorageType, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import type { ZodType } from "zod";
import {
  AddressList,
  BUS_SERVICES,
  busClient,
  ZulipError,
  allContracts,
  missingArgument,
  RawJson,
  decodeParams,
  MAX_FILE_UPLOAD_SIZE_MIB,
  healthContract,
  identity,
  messaging,
  realmConfig,
  identityEvents,
  listenForMetrics,
  natsCheck,
  registerDiscovery,
  ServiceMetrics,
  openBucket,
  subscribeEvent,
  EventFeed,
  lazyChild,
  type CallContext,
  type StoredFileLocation,
  type Config,
  type Contract,
  type Logger,
} from "@teamchat/shared";
import { parseForm, registerBodyParsers } from "./body-parsers";
import { clientName } from "./client-name";
import { measureHttp } from "./http-metrics";
import { UploadedFile, contentDisposition, sendStoredFile, storeFiles } from "./files";
import { AuthCache } from "./auth-cache";
import { InstanceRateLimiter, RateLimiter, type RateDecision } from "./rate-limiter";
import { RealmResolver } from "./realm-resolver";
import { retryingRead } from "./retrying-read";
import { requestContexts } from "./request-context";
import { stoppableReplies } from "./stoppable-replies";
import { answerOtherMethods } from "./method-not-allowed";
import { answerMalformedRequest, notFound, registerErrorReplies } from "./error-replies";
import { camoPath, imageProxyKey, imageProxySettings, registerExternalContent } from "./external-content";
import { UNKNOWN_UNSUBSCRIBE_PAGE, unsubscribedPage } from "./unsubscribe-pages";
import { registerEmojiData } from "./emoji-data";

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

/** The JetStream KV bucket of the rate-limit counters, shared by every gateway instance. */
const RATE_LIMIT_BUCKET = "rate_limits";
/** Secrets the gateway makes itself when not configured (the image proxy's key), shared by every instance. */
const GATEWAY_SECRETS_BUCKET = "gateway_secrets";

declare module "fastify" {
  interface FastifyInstance {
    /** The gateway's METRICS_PORT listener (`/metrics`, `/health`), when that is set. */
    metricsUrl?: string;
  }
}

/**
 * Composition root of the gateway: real NATS in, a ready (not listening)
 * Fastify app out; its metrics listener (METRICS_PORT) and its registration
 * for NATS service discovery live and close with it.
 */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { nc, config, log } = deps;
  const metrics = ServiceMetrics.attach(nc, "gateway");
  const bus = busClient(nc, config);
  const realms = new RealmResolver(bus);
  const authCache = new AuthCache(config.AUTH_CACHE_SECONDS * 1000);
  // Memory storage: counters need not survive a NATS restart (the limiter makes the bucket again), and file
  // writes cost ~1.5x per request.
  const limiter = await RateLimiter.open(
    async () => {
      // short attempts: a counter unreachable for a second lets the request through (see RateLimiter)
      return openBucket(jetstream(nc, { timeout: 1_000 }), RATE_LIMIT_BUCKET, {
        ttl: config.RATE_LIMIT_WINDOW_SECONDS * 2 * 1000,
        storage: StorageType.Memory,
        replicas: config.NATS_STREAM_REPLICAS,
      });
    },
    config.RATE_LIMIT_REQUESTS,
    config.RATE_LIMIT_WINDOW_SECONDS,
    log,
  );
  const instanceLimiter = new InstanceRateLimiter(config.RATE_LIMIT_REQUESTS, config.RATE_LIMIT_WINDOW_SECONDS);

  // Every gateway instance keeps its own cache; after a disconnection it asks identity until the
  // invalidations it may have missed are replayed, and forgets everything if they cannot be.
  const invalidations = subscribeEvent(nc, identityEvents.authInvalidated, ({ userId }) => authCache.dropUser(userId), {
    log,
  });
  const feed = EventFeed.of(nc);
  feed.onReset(() => authCache.clear());
  const contextOf = requestContexts({ bus, realms, authCache, feed });

  const proxies = new AddressList("TRUSTED_PROXIES", config.TRUSTED_PROXIES);
  const app = Fastify({
    // a request through a listed proxy is from the address it forwarded (req.ip); any other's X-Forwarded-For is
    // the client's own say, which would let it pick its rate-limit budget and the address of its login mail
    trustProxy: proxies.isEmpty ? false : (address: string) => proxies.includes(address),
    // Per-request access lines are Fastify's at info level; keep them out, errors stay in.
    loggerInstance: log.child({}, { level: "warn" }) as FastifyBaseLogger,
    // each request's logger (its id bound) is made only if the request logs something
    childLoggerFactory: (logger, bindings, opts) =>
      Object.keys(opts).length > 0
        ? logger.child(bindings, opts)
        : (lazyChild(logger as Logger, bindings) as FastifyBaseLogger),
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    bodyLimit: config.REQUEST_BODY_LIMIT_MIB * 1024 * 1024,
    routerOptions: { querystringParser: parseForm },
    clientErrorHandler: answerMalformedRequest,
    // a request on a kept-alive connection while stopping is served (and the connection closed after it)
    // rather than refused with Fastify's own 503 body, which is not Zulip's error shape
    return503OnClosing: false,
  });
  // every route added from here on is known to the 405 answers, which are added last
  const answerOtherMethodsOfRoutes = answerOtherMethods(app);
  const replyUnlessStopping = stoppableReplies(app);
  app.addHook("onClose", async () => invalidations.unsubscribe());
  const http = measureHttp(app, metrics);
  // discovery only: the gateway answers HTTP, not bus operations
  const discovery = await registerDiscovery(nc, "gateway");
  app.addHook("onClose", async () => void (await discovery.stop()));
  const metricsListener = await listenForMetrics(config, metrics, { nats: natsCheck(nc) }, log);
  if (metricsListener) {
    app.decorate("metricsUrl", metricsListener.url);
    app.addHook("onClose", () => metricsListener.close());
  }
  // The id in every log line of every service for this request; clients can quote it.
  app.addHook("onRequest", async (req, reply) => void reply.header("x-request-id", req.id));
  registerBodyParsers(app, config.JSON_DEPTH_LIMIT);
  await app.register(multipart, {
    attachFieldsToBody: "keyValues",
    // two files at most in memory: enough for the operations to answer Zulip's "one file at a time" refusals
    limits: { fileSize: MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024, files: 2 },
    // file parts keep their name and type: upload operations store them (files.ts)
    async onFile(part) {
      (part as unknown as { value: UploadedFile }).value = new UploadedFile(
        part.filename,
        part.mimetype,
        await part.toBuffer(),
      );
    },
  });

  registerErrorReplies(app);

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
    const decoded = decodeParams(contract.params, raw, config.JSON_DEPTH_LIMIT);
    const { params } = decoded;
    const ignored = [...decoded.ignored, ...shadowed].sort();
    const client = clientName(clientParam, req.headers["user-agent"]);
    const ctx = { realm, actor, client, requestId };
    // Zulip reads files from request.FILES only: the gateway's references replace any field of that name
    if (contract.http!.upload) params.files = await storeFiles(bus, contract.http!.upload, uploaded, ctx);
    const forward = () => forwardRetryingSafely(contract, params, ctx);
    const whenStopping = contract.http!.answerWhenStopping?.(params);
    const answer = whenStopping ? await replyUnlessStopping(forward, whenStopping) : await forward();
    const next = contract.http!.followUp;
    const data = next && answer instanceof RawJson ? await followUp(next, answer, ctx) : answer;
    const success = {
      result: "success",
      msg: "",
      ...(ignored.length > 0 && { ignored_parameters_unsupported: ignored }),
    };
    return reply.type("application/json; charset=utf-8").send(RawJson.merge([success, data]).bytes);
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

  /** A read (or a write its contract says is safe to repeat), asked again while unavailable (see retryingRead). */
  async function forwardRetryingSafely(...args: Parameters<typeof bus.forward>): Promise<RawJson> {
    const [contract, params] = args;
    const safe = contract.http?.method === "GET" || contract.http?.retrySafe?.(params) === true;
    return safe ? retryingRead(() => bus.forward(...args)) : bus.forward(...args);
  }

  const apiRoutes = new Map<string, Route[]>();
  for (const { method, url, routes } of groupRoutes(deps.contracts ?? allContracts)) {
    apiRoutes.set(`${method} ${url}`, routes);
    app.route({
      method,
      url,
      handler: async (req, reply) => {
        const pathValues = Object.values(req.params as Record<string, string>);
        const route = findRoute(routes, pathValues, config.JSON_DEPTH_LIMIT);
        if (!route) throw notFound();
        return serve(route, req, reply, pathValues);
      },
    });
  }

  /**
   * A stored file as a browser gets it: Zulip answers "not found" and "not
   * authorized" with HTML, as a page shows them.
   */
  async function serveFile<L extends StoredFileLocation>(
    reply: FastifyReply,
    ctx: CallContext,
    open: () => Promise<L>,
    readChunk: Contract,
    headers: (location: L) => Record<string, string>,
  ): Promise<FastifyReply> {
    let location;
    try {
      location = await open();
    } catch (err) {
      if (err instanceof ZulipError && (err.status === 404 || err.status === 403)) {
        return reply.status(err.status).type("text/html; charset=utf-8").send(`<p>${err.message}</p>`);
      }
      throw err;
    }
    reply.headers(headers(location));
    return sendStoredFile(reply, bus, readChunk, location, ctx);
  }

  const uploadHeaders = (location: StoredFileLocation & { filename: string }) => ({
    "content-disposition": contentDisposition(location.filename, location.content_type),
    "cache-control": "private, immutable",
  });

  // Zulip's serve_file_backend: the file itself, outside /api/v1, with the API's Basic auth
  app.get("/user_uploads/:realmIdStr/*", async (req, reply) => {
    const { realmIdStr, "*": rest } = req.params as { realmIdStr: string; "*": string };
    const ctx = await contextOf(req, "optional");
    return serveFile(
      reply,
      ctx,
      () => bus.request(messaging.openUpload, { path_id: `${realmIdStr}/${rest}` }, ctx),
      messaging.uploadFiles.readChunk,
      uploadHeaders,
    );
  });

  // Zulip's serve_local_file_unauthed: a URL from GET /api/v1/user_uploads/..., without credentials
  app.get("/user_uploads/temporary/:token/:filename", async (req, reply) => {
    const { token, filename } = req.params as { token: string; filename: string };
    const ctx = await contextOf(req, "none");
    return serveFile(
      reply,
      ctx,
      () => bus.request(messaging.openTemporaryUpload, { token, filename }, ctx),
      messaging.uploadFiles.readChunk,
      uploadHeaders,
    );
  });

  /**
   * Files served to anyone under /user_avatars/, as Zulip's local upload backend serves them: a
   * file's name changes with its content, so a name's file never changes.
   */
  const servePublicFile = (
    path: string,
    open: typeof realmConfig.openEmojiImage | typeof identity.openAvatar,
    readChunk: typeof realmConfig.emojiFiles.readChunk,
  ) =>
    app.get(path, async (req, reply) => {
      const { realmId, fileName } = req.params as { realmId: string; fileName: string };
      const ctx = await contextOf(req, "none");
      return serveFile(
        reply,
        ctx,
        () => bus.request(open, { realm_id: realmId, file_name: fileName }, ctx),
        readChunk,
        () => ({ "cache-control": "public, max-age=31536000, immutable" }),
      );
    });
  // custom emoji images
  servePublicFile(
    "/user_avatars/:realmId/emoji/images/:fileName",
    realmConfig.openEmojiImage,
    realmConfig.emojiFiles.readChunk,
  );
  // uploaded avatars' images
  servePublicFile("/user_avatars/:realmId/:fileName", identity.openAvatar, identity.avatarFiles.readChunk);

  /**
   * Zulip's avatar view (GET /avatar/{email_or_id}, and /medium): a redirect to
   * the user's avatar, the request's query string kept, with the API's
   * credentials; this server has no spectators, so they are required.
   */
  const redirectToAvatar = (medium: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const { emailOrId } = req.params as { emailOrId: string };
    const ctx = await contextOf(req, "required");
    const { url } = await bus.request(identity.findAvatar, { email_or_id: emailOrId, medium }, ctx);
    const query = req.url.split("?")[1] ?? "";
    return reply.redirect(query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url);
  };
  app.get("/avatar/:emailOrId", redirectToAvatar(false));
  app.get("/avatar/:emailOrId/medium", redirectToAvatar(true));

  /**
   * Zulip's email_unsubscribe (zerver/views/unsubscribe.py): the one-click link of a mail's
   * List-Unsubscribe header, opened in a browser or posted to by a mail client's button (RFC 8058),
   * without login; answered with Zulip's pages.
   */
  app.route({
    method: ["GET", "POST"],
    url: "/accounts/unsubscribe/:emailType/:key",
    handler: async (req, reply) => {
      const { emailType, key } = req.params as { emailType: string; key: string };
      const ctx = await contextOf(req, "none");
      let answer: string;
      try {
        answer = unsubscribedPage(
          await bus.request(identity.unsubscribeByLink, { email_type: emailType, confirmation_key: key }, ctx),
        );
      } catch (err) {
        if (!(err instanceof ZulipError && err.status === 400)) throw err;
        answer = UNKNOWN_UNSUBSCRIBE_PAGE;
      }
      return reply.type("text/html; charset=utf-8").send(answer);
    },
  });

  const proxyKey = await imageProxyKey(config, () =>
    // file storage: the generated key outlives NATS restarts, so signed URLs in clients' caches stay valid
    openBucket(jetstream(nc), GATEWAY_SECRETS_BUCKET, {
      storage: StorageType.File,
      replicas: config.NATS_STREAM_REPLICAS,
    }),
  );
  const imageProxy = imageProxySettings(config, proxyKey);
  registerExternalContent(app, imageProxy);
  registerEmojiData(app);

  /**
   * Zulip's backend_serve_thumbnail as it was while Zulip proxied outside images
   * (zerver/views/thumbnail.py, zerver/lib/thumbnail.py generate_thumbnail_url):
   * a path on this server is redirected to itself, an uploaded file's only if
   * the user may see it, any other URL to the signed proxy path. Credentials are
   * the API's, as this server has no browser sessions; `size` is required and
   * not used, as in Zulip. Not counted against the API rate limit, as the file
   * routes are not: a page of image previews would use it up.
   */
  app.get("/thumbnail", async (req, reply) => {
    const ctx = await contextOf(req, "required");
    const query = req.query as Record<string, unknown>;
    const [url, size] = ["url", "size"].map((name) => [query[name]].flat().at(-1));
    if (typeof url !== "string") throw missingArgument("url");
    if (typeof size !== "string") throw missingArgument("size");
    // Django's urljoin("/", url) and url_has_allowed_host_and_scheme: only a URL without scheme or host stays here
    const base = new URL("http://thumbnail.invalid/");
    const resolved = URL.canParse(url, base.href) ? new URL(url, base) : undefined;
    if (resolved?.origin !== base.origin || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
      return reply.redirect(camoPath(imageProxy.key, url));
    }
    if (url.startsWith("user_uploads/")) {
      try {
        await bus.request(messaging.openUpload, { path_id: url.slice("user_uploads/".length) }, ctx);
      } catch (err) {
        if (!(err instanceof ZulipError && (err.status === 404 || err.status === 403))) throw err;
        return reply
          .status(403)
          .type("text/html; charset=utf-8")
          .send("<p>You are not authorized to view this file.</p>");
      }
    }
    // one leading slash: `//host` would send the browser to another host
    return reply.redirect(`${resolved.pathname.replace(/^\/+/, "/")}${resolved.search}${resolved.hash}`);
  });

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

  answerOtherMethodsOfRoutes((method, url, pathValues) => {
    const routes = apiRoutes.get(`${method} ${url}`);
    return !routes || findRoute(routes, pathValues, config.JSON_DEPTH_LIMIT) !== undefined;
  });
  return app;
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
