/**
 * The HTTP proxy `npm run fuzz` puts between schemathesis and the gateway: it
 * passes every exchange through unchanged and judges it with our own checks, so
 * that zulip.yaml replies are validated exactly as the tests validate them
 * (checkReply, with its allowances for what is newer than the document), which
 * schemathesis' response_schema_conformance cannot be told.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import { checkReply, findOperation } from "@teamchat/shared/src/testing/openapi";

export type FindingKind = "server error" | "reply not in zulip.yaml's schema" | "error not in Zulip's shape" | "status";

export interface Finding {
  kind: FindingKind;
  operation: string;
  status: number;
  request: string;
  reply: string;
  problems: string[];
}

export interface FuzzStats {
  /** exchanges per operation (`METHOD /template` of zulip.yaml) and status */
  byOperation: Map<string, Map<number, number>>;
  /** how many exchanges each (operation, kind) failed */
  failures: Map<string, number>;
  /** the first few failing exchanges of each (operation, kind), to reproduce */
  examples: Finding[];
  total: number;
}

const EXAMPLES_PER_FAILURE = 3;
const SHOWN_BYTES = 1500;

const shorten = (text: string) =>
  text.length > SHOWN_BYTES ? `${text.slice(0, SHOWN_BYTES)}… (${text.length} bytes)` : text;

/** Zulip's JsonError: every 4xx is `{"result": "error", "msg": string, "code": string, ...}`. */
function errorShapeProblems(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return ["not a JSON object"];
  const { result, msg, code } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (result !== "error") problems.push(`result is ${JSON.stringify(result)}, not "error"`);
  if (typeof msg !== "string") problems.push("msg is not a string");
  if (typeof code !== "string") problems.push("code is not a string");
  return problems;
}

/**
 * Zulip's json_method_not_allowed, which is no JsonError: `{"result": "error",
 * "msg": "Method Not Allowed", "allowed_methods": [...]}`, the same methods in Allow.
 */
function methodNotAllowedProblems(body: unknown, allow: string | undefined): string[] {
  if (typeof body !== "object" || body === null) return ["not a JSON object"];
  const { result, msg, allowed_methods: allowed } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (result !== "error") problems.push(`result is ${JSON.stringify(result)}, not "error"`);
  if (msg !== "Method Not Allowed") problems.push(`msg is ${JSON.stringify(msg)}, not "Method Not Allowed"`);
  if (!Array.isArray(allowed) || allowed.length === 0) problems.push("allowed_methods is not a list of methods");
  else if (allowed.join(", ") !== allow) problems.push(`Allow is ${JSON.stringify(allow)}, not allowed_methods`);
  return problems;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What is wrong with one exchange, or undefined when nothing is. */
function judge(
  method: string,
  url: string,
  status: number,
  replyText: string,
  allow: string | undefined,
): [FindingKind, string[]] | undefined {
  if (status >= 500) return ["server error", [`HTTP ${status}`]];
  // Zulip's rest_dispatch answers OPTIONS with 204 and the path's methods in Allow
  if (method === "OPTIONS" && status === 204) return allow ? undefined : ["status", ["204 without Allow"]];
  const body = parseJson(replyText);
  if (status === 405) {
    const problems = methodNotAllowedProblems(body, allow);
    return problems.length ? ["error not in Zulip's shape", problems] : undefined;
  }
  if (status === 200) {
    if (body === undefined) return ["reply not in zulip.yaml's schema", ["not JSON"]];
    const problems = checkReply(method, url, body);
    return problems.length ? ["reply not in zulip.yaml's schema", problems] : undefined;
  }
  if (status >= 400) {
    const problems = errorShapeProblems(body);
    return problems.length ? ["error not in Zulip's shape", problems] : undefined;
  }
  // Zulip answers 200 or an error; a redirect or an empty 204 is something no client expects.
  return ["status", [`HTTP ${status}`]];
}

export interface FuzzProxy {
  url: string;
  stats: FuzzStats;
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port and forwards to `target`. `afterReply` runs
 * before the reply is passed back (to repair what a request did to the fuzzing
 * user; see fuzz.ts), so the next request sees the repaired state.
 */
export async function startFuzzProxy(
  target: string,
  afterReply: (method: string, url: string, status: number) => Promise<void>,
): Promise<FuzzProxy> {
  const stats: FuzzStats = { byOperation: new Map(), failures: new Map(), examples: [], total: 0 };
  const targetUrl = new URL(target);
  const record = (
    method: string,
    url: string,
    contentType: string | undefined,
    status: number,
    requestBody: Buffer,
    replyText: string,
    allow?: string,
  ) => {
    const op = findOperation(method, url);
    const operation = op ? `${op.method} ${op.template}` : `${method} (no such path in zulip.yaml)`;
    const byStatus = stats.byOperation.get(operation) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    stats.byOperation.set(operation, byStatus);
    stats.total++;
    const verdict = judge(method, url, status, replyText, allow);
    if (!verdict) return;
    const [kind, problems] = verdict;
    const key = `${operation}: ${kind}`;
    const seen = stats.failures.get(key) ?? 0;
    stats.failures.set(key, seen + 1);
    if (seen < EXAMPLES_PER_FAILURE) {
      const sent = requestBody.length ? ` (${contentType}) body: ${shorten(requestBody.toString("utf8"))}` : "";
      stats.examples.push({
        kind,
        operation,
        status,
        request: `${method} ${url}${sent}`,
        reply: shorten(replyText),
        problems: problems.slice(0, 10),
      });
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const requestBody = Buffer.concat(chunks);
      const method = req.method ?? "GET";
      const url = req.url ?? "/";
      const headers: IncomingHttpHeaders = { ...req.headers, host: targetUrl.host };
      const upstream = request(
        { host: targetUrl.hostname, port: targetUrl.port, method, path: url, headers },
        (reply) => {
          const replyChunks: Buffer[] = [];
          reply.on("data", (c: Buffer) => replyChunks.push(c));
          reply.on("end", () => {
            const replyBody = Buffer.concat(replyChunks);
            const status = reply.statusCode ?? 0;
            const replyText = replyBody.toString("utf8");
            record(method, url, req.headers["content-type"], status, requestBody, replyText, reply.headers.allow);
            afterReply(method, url, status)
              .catch((err: Error) => process.stderr.write(`[fuzz] repairing the fuzzing user failed: ${err.message}\n`))
              .finally(() => {
                res.writeHead(status, reply.headers);
                res.end(replyBody);
              });
          });
        },
      );
      upstream.on("error", (err) => {
        record(
          method,
          url,
          req.headers["content-type"],
          599,
          requestBody,
          `proxy: the gateway did not answer: ${err.message}`,
        );
        res.writeHead(502).end();
      });
      upstream.end(requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
