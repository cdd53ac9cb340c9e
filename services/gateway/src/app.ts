import multipart from "@fastify/multipart";
import { StorageType, jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { randomUUID } from "node:crypto";
import {
  AddressList,
  busClient,
  allContracts,
  MAX_FILE_UPLOAD_SIZE_MIB,
  identityEvents,
  listenForMetrics,
  natsCheck,
  registerDiscovery,
  ServiceMetrics,
  openBucket,
  subscribeEvent,
  EventFeed,
  lazyChild,
  type Config,
  type Contract,
  type Logger,
} from "@teamchat/shared";
import { parseForm, registerBodyParsers } from "./body-parsers";
import { measureHttp } from "./http-metrics";
import { UploadedFile } from "./files";
import { AuthCache } from "./auth-cache";
import { InstanceRateLimiter, RateLimiter } from "./rate-limiter";
import { RealmResolver } from "./realm-resolver";
import { requestContexts } from "./request-context";
import { stoppableReplies } from "./stoppable-replies";
import { answerOtherMethods } from "./method-not-allowed";
import { answerMalformedRequest, registerErrorReplies } from "./error-replies";
import { imageProxyKey, imageProxySettings, registerExternalContent } from "./external-content";
import { registerEmojiData } from "./emoji-data";
import { registerApiRoutes } from "./routes/api";
import { registerFileRoutes } from "./routes/files";
import { registerPages } from "./routes/pages";
import { registerHealth } from "./routes/health";

export interface GatewayDeps {
  nc: NatsConnection;
  config: Config;
  log: Logger;
  contracts?: Contract[];
}

/** The JetStream KV bucket of the rate-limit counters, shared by every gateway instance. */
const RATE_LIMIT_BUCKET = "rate_limits";
/** Secrets the gateway makes itself when not configured (the image proxy's key), shared by every instance. */
const GATEWAY_SECRETS_BUCKET = "gateway_secrets";
/**
 * The shared pieces of the replies the gateway passes on (an organization's user list in each
 * register), kept at most: 32 MiB holds the lists of ~20 organizations of 1,000 users.
 */
const PIECE_CACHE_BYTES = 32 * 1024 * 1024;

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
  const bus = busClient(nc, config, PIECE_CACHE_BYTES);
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

  const app = newFastify(config, log);
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

  const proxyKey = await imageProxyKey(config, () =>
    // file storage: the generated key outlives NATS restarts, so signed URLs in clients' caches stay valid
    openBucket(jetstream(nc), GATEWAY_SECRETS_BUCKET, {
      storage: StorageType.File,
      replicas: config.NATS_STREAM_REPLICAS,
    }),
  );
  const acceptsPath = registerApiRoutes(app, {
    bus,
    log,
    contracts: deps.contracts ?? allContracts,
    maxJsonDepth: config.JSON_DEPTH_LIMIT,
    contextOf,
    limiter,
    instanceLimiter,
    http,
    replyUnlessStopping,
  });
  registerFileRoutes(app, { bus, contextOf, proxyKey });
  registerPages(app, { bus, contextOf });
  registerExternalContent(app, imageProxySettings(config, proxyKey));
  registerEmojiData(app);
  registerHealth(app, { nc, bus });
  answerOtherMethodsOfRoutes(acceptsPath);
  return app;
}

/** The Fastify instance, with what Zulip's clients and the gateway's proxies need of its options. */
function newFastify(config: Config, log: Logger): FastifyInstance {
  const proxies = new AddressList("TRUSTED_PROXIES", config.TRUSTED_PROXIES);
  return Fastify({
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
}
