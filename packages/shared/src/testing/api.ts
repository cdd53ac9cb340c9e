/**
 * An HTTP client for tests that speaks as Zulip clients do: GET parameters in
 * the query string, others form-encoded (or multipart), non-strings as JSON.
 * Every 200 reply is checked against zulip.yaml; a mismatch throws.
 */
import { request as httpRequest } from "node:http";
import { basicAuth, type Credentials } from "../basic-auth";
import { checkReply } from "./openapi";

export { basicAuth, type Credentials };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = Record<string, any>;

export interface ApiResponse {
  status: number;
  body: Body;
  headers: Headers;
}

export type Params = Record<string, unknown>;
export type Encoding = "form" | "multipart" | "query";

export const encodeValue = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** Who a request is from: an account's credentials, or a raw Authorization header (for tests of malformed ones). */
export type Auth = Credentials | { authorization: string };

/** The tests' User-Agent: Zulip names the client of what they send `TeamchatTests`. */
export const TEST_USER_AGENT = "TeamchatTests/1.0 (jest)";

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Auth | null,
    /** Host header, which picks the organization (`<subdomain>.localhost`); default: the one of baseUrl */
    readonly host?: string,
    /** what the requests say they come from: a message sent through this client records its name */
    readonly userAgent: string | null = TEST_USER_AGENT,
  ) {}

  get = (path: string, params?: Params) => this.request("GET", path, params, "query");
  post = (path: string, params?: Params, encoding: Encoding = "form") => this.request("POST", path, params, encoding);
  patch = (path: string, params?: Params, encoding: Encoding = "form") => this.request("PATCH", path, params, encoding);
  delete = (path: string, params?: Params, encoding: Encoding = "form") =>
    this.request("DELETE", path, params, encoding);

  async request(
    method: string,
    path: string,
    params: Params = {},
    encoding: Encoding = "form",
    extraHeaders: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...extraHeaders };
    if (this.credentials && "authorization" in this.credentials) {
      headers.authorization = this.credentials.authorization;
    } else if (this.credentials) {
      headers.authorization = basicAuth(this.credentials);
    }
    const entries = Object.entries(params).filter(([, v]) => v !== undefined);
    let url = `${this.baseUrl}/api/v1${path}`;
    let body: string | FormData | undefined;
    if (encoding === "query") {
      if (entries.length)
        url += "?" + new URLSearchParams(entries.map(([k, v]): [string, string] => [k, encodeValue(v)])).toString();
    } else if (encoding === "multipart") {
      const form = new FormData();
      // a Blob (File) is sent as a file part, as clients upload files
      for (const [k, v] of entries) form.append(k, v instanceof Blob ? v : encodeValue(v));
      body = form;
    } else {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(entries.map(([k, v]): [string, string] => [k, encodeValue(v)])).toString();
    }
    if (this.host) headers.host = this.host;
    if (this.userAgent !== null) headers["user-agent"] = this.userAgent;
    const res = await send(method, url, headers, body);
    const { text } = res;
    let json: Body;
    try {
      json = JSON.parse(text) as Body;
    } catch {
      throw new Error(`${method} ${path}: reply is not JSON (${res.status}): ${text.slice(0, 200)}`);
    }
    if (res.status === 200) {
      const problems = checkReply(method, path, json);
      if (problems.length) {
        throw new Error(
          `${method} ${path}: reply does not match zulip.yaml:\n  ${problems.join("\n  ")}\n${text.slice(0, 2000)}`,
        );
      }
    } else if (json.result !== "error" || typeof json.msg !== "string" || typeof json.code !== "string") {
      throw new Error(`${method} ${path}: error reply lacks result/msg/code: ${text.slice(0, 500)}`);
    }
    return { status: res.status, body: json, headers: res.headers };
  }
}

/** node:http rather than fetch, which ignores a Host header. */
async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | FormData | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  let bytes: Buffer | undefined;
  if (body instanceof FormData) {
    // Response encodes the form as fetch would: the bytes and the content-type with its boundary.
    const encoded = new Response(body);
    headers["content-type"] = encoded.headers.get("content-type")!;
    bytes = Buffer.from(await encoded.arrayBuffer());
  } else if (body !== undefined) {
    bytes = Buffer.from(body);
  }
  if (bytes) headers["content-length"] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of [value ?? []].flat()) replyHeaders.append(name, one);
        }
        resolve({ status: res.statusCode!, headers: replyHeaders, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(bytes);
  });
}

/** Asserts a success reply and returns its body. */
export function ok(res: ApiResponse): Body {
  if (res.status !== 200 || res.body.result !== "success") {
    throw new Error(`expected success, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body;
}
