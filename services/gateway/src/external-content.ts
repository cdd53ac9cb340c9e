/**
 * The image proxy behind Zulip's `/thumbnail`: Zulip redirects an outside
 * image to its camo service (`/external_content/<digest>/<hex url>`,
 * zerver/lib/camo.py), which fetches it so that readers' clients never ask the
 * image's host (which would learn their addresses). Camo (go-camo) is a
 * separate Go service; here the gateway does its work, with go-camo's
 * protections, statuses and plain-text error bodies (pkg/camo/proxy.go).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { Transform, pipeline } from "node:stream";
import { MIMEType } from "node:util";
import type { KV } from "@nats-io/kv";
import {
  configureThroughElection,
  RefusedUrl,
  ReachableAddresses,
  fetchChecked,
  urlRefusal,
  type Config,
} from "@teamchat/shared";

/** Where a generated proxy key is kept (the JetStream KV bucket's entry), shared by every gateway instance. */
export const CAMO_KEY_ENTRY = "camo_key";

/** Sent as Via on every fetch; a request that arrives with it is the proxy fetching itself (go-camo's loop check). */
const VIA = "teamchat-camo";

/** go-camo's default headers on every answer: nothing in a proxied file may run or load anything. */
const SAFE_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
};

/** Upstream response headers passed on (go-camo's ValidRespHeaders, less those of range requests). */
const PASSED_HEADERS = ["cache-control", "content-encoding", "etag", "expires", "last-modified"];
/** Request headers passed on: the conditional ones, so that a cached image is revalidated; never cookies or credentials. */
const CONDITIONAL_HEADERS = ["if-none-match", "if-modified-since"];
/** How long clients may keep an image whose host says nothing about caching. */
const DEFAULT_CACHE_CONTROL = "public, max-age=86400";

/** go-camo's answer to every failure to fetch (bad address, bad redirect, network error). */
const FETCH_FAILED = "Error Fetching Resource";

/** A request the proxy refuses: go-camo's status and plain-text message. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Zulip's generate_camo_url: `<HMAC-SHA1 hex digest>/<hex of the URL>` (zerver/lib/camo.py). */
export function camoPath(key: string, url: string): string {
  const bytes = Buffer.from(url, "utf8");
  return `/external_content/${createHmac("sha1", key).update(bytes).digest("hex")}/${bytes.toString("hex")}`;
}

/** The URL a camo path was signed for, or undefined when the digest does not match (go-camo's HexDecodeURL). */
function signedUrl(key: string, digest: string, hexUrl: string): string | undefined {
  if (!/^(?:[0-9a-f]{2})*$/i.test(hexUrl) || !/^[0-9a-f]{40}$/i.test(digest)) return undefined;
  const bytes = Buffer.from(hexUrl, "hex");
  const expected = createHmac("sha1", key).update(bytes).digest();
  return timingSafeEqual(expected, Buffer.from(digest, "hex")) ? bytes.toString("utf8") : undefined;
}

export interface ImageProxySettings {
  key: string;
  maxBytes: number;
  timeoutMs: number;
  addresses: ReachableAddresses;
}

/**
 * The key that signs proxy URLs: CAMO_KEY, or else a random one made by the
 * first gateway to start and kept in `secrets` for every instance after it
 * (Zulip's generate_secrets.py makes its camo_key at install): a key known
 * to anyone would let anyone use the proxy.
 */
export async function imageProxyKey(config: Config, secrets: () => Promise<KV>): Promise<string> {
  if (config.CAMO_KEY !== undefined) return config.CAMO_KEY;
  const kv = await secrets();
  const made = randomBytes(32).toString("hex");
  // each asked again through a NATS restart as the gateway starts; a create whose answer was lost
  // is refused when asked again, and the entry read then is the one it made
  try {
    await configureThroughElection(() => kv.create(CAMO_KEY_ENTRY, made));
    return made;
  } catch (err) {
    // another instance made it first: create refuses an entry that exists
    const kept = (await configureThroughElection(() => kv.get(CAMO_KEY_ENTRY)))?.string();
    if (!kept) throw err;
    return kept;
  }
}

/** The proxy's settings: its key (imageProxyKey) and the configuration's limits. */
export function imageProxySettings(config: Config, key: string): ImageProxySettings {
  return {
    key,
    maxBytes: Math.floor(config.CAMO_MAX_SIZE_MIB * 1024 * 1024),
    timeoutMs: config.CAMO_TIMEOUT_SECONDS * 1000,
    addresses: new ReachableAddresses(config.CAMO_ALLOWED_PRIVATE_ADDRESSES),
  };
}

/**
 * The body up to `maxBytes`: a body without Content-Length that goes on past
 * it is cut off there (go-camo's LimitReadCloser), by `cutOff`, which ends the
 * answer to the client (an incomplete image, not a complete smaller one).
 */
function limitedTo(maxBytes: number, cutOff: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen <= maxBytes) return done(null, chunk);
      cutOff();
      done();
    },
  });
}

/** The image's type as answered to the client: only images pass (go-camo's accept list, `image/*`). */
function imageType(contentType: string | undefined): string {
  if (!contentType) throw new Refusal(400, "Empty content-type returned");
  let type: MIMEType;
  try {
    type = new MIMEType(contentType);
  } catch {
    throw new Refusal(400, "Unsupported content-type returned");
  }
  if (type.type !== "image") throw new Refusal(400, "Unsupported content-type returned");
  return type.essence;
}

/** go-camo's answer to an upstream status other than 200 and 304. */
function upstreamRefusal(status: number): Refusal {
  if (status === 300) return new Refusal(404, "Multiple choices not supported");
  // upstream failures: the client may try again later
  if ([500, 502, 503, 504].includes(status)) return new Refusal(502, FETCH_FAILED);
  return new Refusal(404, "Not Found");
}

function sendRefusal(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return reply
    .status(refusal.status)
    .headers(SAFE_HEADERS)
    .type("text/plain; charset=utf-8")
    .send(`${refusal.message}\n`);
}

/**
 * GET (and HEAD) `/external_content/<digest>/<hex url>`: the signed URL's
 * image, streamed. No credentials: the signature is what lets a URL through,
 * as with camo. A failure after the image has started is a cut-off answer.
 */
export function registerExternalContent(app: FastifyInstance, settings: ImageProxySettings): void {
  app.get("/external_content/:digest/:hexUrl", {
    // errors of the upstream stream before its first byte come here: go-camo's 502 for a fetch that broke off
    errorHandler: (err, req, reply) => {
      if (err instanceof Refusal) return sendRefusal(reply, err);
      req.log.warn({ err }, "image proxy fetch failed");
      return sendRefusal(reply, new Refusal(502, FETCH_FAILED));
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.headers.via === VIA) throw new Refusal(404, "Request loop failure");
      const { digest, hexUrl } = req.params as { digest: string; hexUrl: string };
      const signed = signedUrl(settings.key, digest, hexUrl);
      if (signed === undefined) throw new Refusal(403, "Bad Signature");
      if (!URL.canParse(signed)) throw new Refusal(400, "Bad url");
      const url = new URL(signed);
      const refused = urlRefusal(url);
      if (refused !== undefined) throw new Refusal(404, refused);

      const deadline = AbortSignal.timeout(settings.timeoutMs);
      // a client that goes away stops the fetch
      const gone = new AbortController();
      reply.raw.on("close", () => gone.abort());
      const headers: OutgoingHttpHeaders = { accept: "image/*", "user-agent": VIA, via: VIA };
      for (const name of CONDITIONAL_HEADERS) if (req.headers[name]) headers[name] = req.headers[name];
      let upstream: IncomingMessage;
      try {
        ({ response: upstream } = await fetchChecked(url, {
          method: req.method,
          headers,
          addresses: settings.addresses,
          signal: AbortSignal.any([deadline, gone.signal]),
        }));
      } catch (err) {
        if (err instanceof RefusedUrl) throw new Refusal(404, FETCH_FAILED);
        // go-camo: a timeout is 504, any other failure to connect 404
        throw new Refusal(deadline.aborted ? 504 : 404, FETCH_FAILED);
      }
      const status = upstream.statusCode!;
      const declaredLength = Number(upstream.headers["content-length"] ?? NaN);
      try {
        if (status !== 200 && status !== 304) throw upstreamRefusal(status);
        if (declaredLength > settings.maxBytes) throw new Refusal(404, "Content length exceeded");
        if (status === 200) reply.type(imageType(upstream.headers["content-type"]));
      } catch (err) {
        upstream.destroy();
        throw err;
      }
      for (const name of PASSED_HEADERS) {
        const value = upstream.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      if (upstream.headers["cache-control"] === undefined) reply.header("cache-control", DEFAULT_CACHE_CONTROL);
      if (Number.isInteger(declaredLength)) reply.header("content-length", declaredLength);
      reply.status(status).headers(SAFE_HEADERS);
      if (status === 304) {
        upstream.destroy();
        return reply.send();
      }
      // streamed: the gateway holds a chunk at a time, whatever the image's size
      const cutOff = () => reply.raw.destroy();
      return reply.send(pipeline(upstream, limitedTo(settings.maxBytes, cutOff), () => undefined));
    },
  });
}
