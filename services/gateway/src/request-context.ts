import type { FastifyRequest } from "fastify";
import {
  identity,
  unauthorized,
  type Actor,
  type BusClient,
  type CallContext,
  type EventFeed,
  type RealmRef,
} from "@teamchat/shared";
import { AuthCache } from "./auth-cache";
import type { RealmResolver } from "./realm-resolver";
import { retryingRead } from "./retrying-read";

/** Which credentials a route takes: none, the API's Basic ones when the request sends any, or those always. */
export type Credentials = "none" | "optional" | "required";

/** What a route's bus requests carry: the organization its Host names, who asks, the request's id. */
export type RequestContext = CallContext & { realm: RealmRef };

export type RequestContextOf = (req: FastifyRequest, credentials: Credentials) => Promise<RequestContext>;

/**
 * Every route's context, made one way: the organization first, so that an
 * unknown host is answered before the credentials are looked at, then the actor.
 */
export function requestContexts(deps: {
  bus: BusClient;
  realms: RealmResolver;
  authCache: AuthCache;
  feed: EventFeed;
}): RequestContextOf {
  const { bus, realms, authCache, feed } = deps;

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
    const cached = feed.current ? authCache.get(cacheKey) : undefined;
    if (cached) return cached;
    const actor = await retryingRead(() =>
      bus.request(identity.authenticate, { email, api_key: apiKey }, { realm, actor: null, requestId: req.id }),
    );
    authCache.set(cacheKey, actor);
    return actor;
  }

  return async (req, credentials) => {
    const realm = await realms.resolve(req.headers.host ?? "", req.id);
    const authenticates = credentials === "required" || (credentials === "optional" && !!req.headers.authorization);
    const actor = authenticates ? await authenticate(req, realm) : null;
    return { realm, actor, requestId: req.id };
  };
}
