/**
 * An HTTP client for tests that speaks as Zulip clients do: GET parameters in
 * the query string, others form-encoded (or multipart), non-strings as JSON.
 * Every 200 reply is checked against zulip.yaml; a mismatch throws.
 */
import { checkReply } from "./openapi";

export interface Credentials {
  email: string;
  apiKey: string;
}

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

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials | null,
  ) {}

  get = (path: string, params?: Params) => this.request("GET", path, params, "query");
  post = (path: string, params?: Params, encoding: Encoding = "form") => this.request("POST", path, params, encoding);
  patch = (path: string, params?: Params, encoding: Encoding = "form") => this.request("PATCH", path, params, encoding);
  delete = (path: string, params?: Params, encoding: Encoding = "form") =>
    this.request("DELETE", path, params, encoding);

  async request(method: string, path: string, params: Params = {}, encoding: Encoding = "form"): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    if (this.credentials) {
      const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString("base64");
      headers.authorization = `Basic ${token}`;
    }
    const entries = Object.entries(params).filter(([, v]) => v !== undefined);
    let url = `${this.baseUrl}/api/v1${path}`;
    let body: string | FormData | undefined;
    if (encoding === "query") {
      if (entries.length)
        url += "?" + new URLSearchParams(entries.map(([k, v]): [string, string] => [k, encodeValue(v)])).toString();
    } else if (encoding === "multipart") {
      const form = new FormData();
      for (const [k, v] of entries) form.append(k, encodeValue(v));
      body = form;
    } else {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(entries.map(([k, v]): [string, string] => [k, encodeValue(v)])).toString();
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
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

/** Asserts a success reply and returns its body. */
export function ok(res: ApiResponse): Body {
  if (res.status !== 200 || res.body.result !== "success") {
    throw new Error(`expected success, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body;
}
