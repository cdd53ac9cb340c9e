/**
 * GET of a path outside /api/v1 (`/user_uploads/...`, emoji images), as a
 * browser or a client downloading a file does: the raw status, headers and bytes.
 */
import { request as httpRequest } from "node:http";
import { basicAuth, type Credentials } from "@teamchat/shared/src/testing/api";
import type { TestOrganization } from "./organization";

export interface Download {
  status: number;
  headers: Record<string, unknown>;
  body: Buffer;
}

/** `path` of `org` as `user` (HTTP Basic credentials), or anonymously with null. */
export function download(org: TestOrganization, user: Credentials | null, path: string): Promise<Download> {
  const { host } = org.api(user);
  const headers: Record<string, string> = { ...(host ? { host } : {}) };
  if (user) headers.authorization = basicAuth(user);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${org.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}
