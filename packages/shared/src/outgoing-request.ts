/**
 * The server's requests to URLs its users give (the image proxy, link
 * previews), with go-camo's protections: only http(s), no userinfo, no
 * localhost names, every resolved address checked (ReachableAddresses), and
 * redirects followed only to URLs that pass the same checks.
 */
import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { ReachableAddresses } from "./reachable-address";

/** go-camo's default --max-redirects. */
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A URL the server will not fetch: a refused address, name or redirect. */
export class RefusedUrl extends Error {}

/** go-camo's checkURL: why a URL may not be fetched, or undefined when it may. */
export function urlRefusal(url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Bad url scheme";
  const host = url.hostname.toLowerCase();
  if (host === "" || /(?:^|\.)(?:localhost|localdomain)\.?$/.test(host)) return "Bad url host";
  if (url.username !== "" || url.password !== "") return "Userinfo URL rejected";
  return undefined;
}

/** `promise`, or a rejection once `signal` aborts: DNS lookups take no signal, and the time limit covers them too. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * One request to `url`, connected only to addresses checked first: the name is
 * resolved here and the connection's own lookup answers with the addresses
 * checked, so that a second resolution cannot lead elsewhere (DNS rebinding).
 * Refused, as go-camo's dialer does, when any address of the name is not
 * reachable. Node still tries the checked addresses of both families in turn.
 */
async function requestChecked(
  url: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  addresses: ReachableAddresses,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(host);
  const resolved: LookupAddress[] =
    family !== 0
      ? [{ address: host, family }]
      : await untilAborted(lookup(host, { all: true, verbatim: true }), signal).catch((err: unknown) => {
          if (signal.aborted) throw err;
          return [];
        });
  if (resolved.length === 0 || !resolved.every(({ address }) => addresses.reachable(address))) {
    throw new RefusedUrl(`no reachable address for ${url.host}`);
  }
  const checkedLookup: LookupFunction = (_name, options, answer) =>
    options.all ? answer(null, resolved) : answer(null, resolved[0]!.address, resolved[0]!.family);
  const https = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const request = (https ? httpsRequest : httpRequest)(
      {
        host,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method,
        headers: { ...headers, host: url.host },
        lookup: checkedLookup,
        agent: false,
        signal,
      },
      resolve,
    );
    request.on("error", reject);
    request.end();
  });
}

/**
 * The answer to `start`, redirects followed (at most MAX_REDIRECTS, each URL
 * checked again as go-camo's CheckRedirect does). The answer's `url` is where
 * it came from (the last redirect's target). Throws RefusedUrl for what the
 * checks refuse; network errors and `signal`'s abort as they come.
 */
export async function fetchChecked(
  start: URL,
  options: { method: string; headers: OutgoingHttpHeaders; addresses: ReachableAddresses; signal: AbortSignal },
): Promise<{ response: IncomingMessage; url: URL }> {
  const refused = urlRefusal(start);
  if (refused !== undefined) throw new RefusedUrl(refused);
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const response = await requestChecked(url, options.method, options.headers, options.addresses, options.signal);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode!) || location === undefined) return { response, url };
    response.destroy();
    const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    if (redirects === MAX_REDIRECTS || next === undefined || urlRefusal(next) !== undefined) {
      throw new RefusedUrl(`redirect refused: ${location}`);
    }
    url = next;
  }
}
