/**
 * A small HTTP client for the benchmark's own requests (setup, probes, long-polls,
 * mixed load): loopback only, Basic auth, the organization chosen by the Host
 * header (fetch() cannot set it), a timeout on every request.
 */
import { Agent, request } from "node:http";
import { basicAuth, encodeValue, type Credentials } from "@teamchat/shared/src/testing/api";

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4096 });

export const encode = (params: Record<string, unknown>): string =>
  new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, encodeValue(v)]),
  ).toString();

export class Http {
  /** `host` is the Host header that selects the organization, e.g. `h1000.localhost:9991`. */
  constructor(
    readonly port: number,
    readonly host: string,
    readonly creds: Credentials | null,
  ) {}

  as(creds: Credentials | null): Http {
    return new Http(this.port, this.host, creds);
  }

  get = (path: string, params: Record<string, unknown> = {}, timeoutMs = 30_000) =>
    this.call("GET", path, params, timeoutMs);
  post = (path: string, params: Record<string, unknown> = {}, timeoutMs = 30_000) =>
    this.call("POST", path, params, timeoutMs);
  delete = (path: string, params: Record<string, unknown> = {}, timeoutMs = 30_000) =>
    this.call("DELETE", path, params, timeoutMs);

  /** One request; never throws: a network error or timeout is status 0 with `body.msg` saying which. */
  async call(method: string, path: string, params: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
    const r = await this.once(method, path, params, timeoutMs);
    // A kept-alive socket the server closed while idle fails at once: try again on a new one (as Node's docs advise).
    return r.stale ? this.once(method, path, params, timeoutMs) : r;
  }

  private once(
    method: string,
    path: string,
    params: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<Reply & { stale?: boolean }> {
    const query = encode(params);
    const headers: Record<string, string> = { host: this.host };
    if (this.creds) headers.authorization = basicAuth(this.creds);
    const isQuery = method === "GET";
    if (!isQuery) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      // Node frames a DELETE's body only when told its length (it sends chunked bodies for POST
      // and PUT alone): without it the server reads the body as the next request and refuses it.
      headers["content-length"] = String(Buffer.byteLength(query));
    }
    const t0 = performance.now();
    return new Promise<Reply & { stale?: boolean }>((resolve) => {
      let done = false;
      const finish = (status: number, body: Reply["body"]) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ status, body, ms: performance.now() - t0 });
      };
      const req = request(
        {
          host: "127.0.0.1",
          port: this.port,
          method,
          path: `/api/v1${path}${isQuery && query ? `?${query}` : ""}`,
          headers,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            try {
              finish(res.statusCode ?? 0, JSON.parse(text) as Reply["body"]);
            } catch {
              finish(res.statusCode ?? 0, { result: "error", msg: `not JSON: ${text.slice(0, 200)}` });
            }
          });
          res.on("error", (err) => finish(0, { result: "error", msg: err.message }));
        },
      );
      const timer = setTimeout(() => {
        finish(0, { result: "error", msg: `timed out after ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on("error", (err: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && (err.code === "ECONNRESET" || err.message === "socket hang up");
        if (stale && !done) {
          done = true;
          clearTimeout(timer);
          resolve({ status: 0, body: { result: "error", msg: err.message }, ms: 0, stale: true });
        } else finish(0, { result: "error", msg: err.message });
      });
      if (!isQuery) req.write(query);
      req.end();
    });
  }
}

/** The body of a 200 reply, or an error saying what was asked and what came back. */
export function ok(what: string, r: Reply): Reply["body"] {
  if (r.status !== 200 || r.body.result !== "success") {
    throw new Error(`${what}: HTTP ${r.status}: ${String(r.body.msg ?? JSON.stringify(r.body)).slice(0, 300)}`);
  }
  return r.body;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Percentile of an ascending list (NaN when empty). */
export const pct = (sorted: number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

/** Runs `fn` on each item with at most `limit` at a time. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}
