/**
 * Inline image previews through the server's own path, as Zulip serves them:
 * the rendered `<img src="/thumbnail?url=...">` answers, with the reader's API
 * credentials, a redirect to the signed `/external_content/...` proxy path,
 * which fetches the image from its host (here a local server on 127.0.0.1, the
 * one private address the test system allows) and refuses what go-camo
 * refuses: other private addresses, redirects to them, non-images, too large
 * bodies and URLs the server did not sign.
 */
import { createHmac, randomBytes } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Readable, pipeline } from "node:stream";
import { Kvm } from "@nats-io/kv";
import { messaging } from "@teamchat/shared";
import { basicAuth, type Credentials } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

const IMAGE = randomBytes(3000);
const MIB = 1024 * 1024;
/** the test system's CAMO_MAX_SIZE_MIB (the default) */
const MAX_BYTES = 25 * MIB;

let org: TestOrganization;
let alice: TestUser, bob: TestUser;
/** the image host (allowed) and the same handler on an address the test system does not allow */
let imageHost: Server, privateHost: Server;
let imageBase: string, privateBase: string;
const received: Array<{ host: string; method: string; path: string; headers: IncomingHttpHeaders }> = [];

function imageServer(): Server {
  return createServer((req, res) => {
    received.push({ host: req.socket.localAddress!, method: req.method!, path: req.url!, headers: req.headers });
    switch (req.url) {
      case "/cat.png":
        if (req.headers["if-none-match"] === '"v1"') return res.writeHead(304, { etag: '"v1"' }).end();
        return res
          .writeHead(200, { "content-type": "image/png", "content-length": IMAGE.length, etag: '"v1"' })
          .end(IMAGE);
      case "/page.png":
        return res.writeHead(200, { "content-type": "text/html" }).end("<script>alert(1)</script>");
      case "/untyped.png":
        return res.writeHead(200).end(IMAGE);
      case "/declared-huge.png":
        // refused on its Content-Length, before any of the body
        return res.writeHead(200, { "content-type": "image/png", "content-length": MAX_BYTES + 1 }).flushHeaders();
      case "/endless.png":
        return streamBytes(res, MAX_BYTES + MIB);
      case "/to-cat.png":
        return res.writeHead(302, { location: "/cat.png" }).end();
      case "/to-private.png":
        return res.writeHead(302, { location: `${privateBase}/cat.png` }).end();
      case "/loop.png":
        return res.writeHead(302, { location: "/loop.png" }).end();
      case "/broken.png":
        return res.writeHead(503).end();
      default:
        return res.writeHead(404).end();
    }
  });
}

/** A chunked image body of `total` bytes, written as fast as the reader takes it, until the reader goes. */
function streamBytes(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 7);
  function* chunks() {
    for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
  }
  res.writeHead(200, { "content-type": "image/png" });
  pipeline(Readable.from(chunks()), res, () => undefined);
}

async function listen(server: Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice");
  bob = await org.makeUser("Bob");
  [imageHost, privateHost] = [imageServer(), imageServer()];
  imageBase = await listen(imageHost, "127.0.0.1");
  privateBase = await listen(privateHost, "127.0.0.2");
});
afterAll(async () => {
  for (const server of [imageHost, privateHost]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
  await org?.stop();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** false when the connection was cut before the body's end */
  complete: boolean;
}

/** GET of a path outside /api/v1, as a client loading an image does: the raw answer. */
function get(
  path: string,
  user: Credentials | null,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Answer> {
  const { host } = org.api(user);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${org.baseUrl}${path}`,
      { method, headers: { ...(host && { host }), ...(user && { authorization: basicAuth(user) }), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        const answer = (complete: boolean) =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), complete });
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", () => answer(false));
        res.on("end", () => answer(true));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The proxy path /thumbnail sends `user` to for an outside image URL. */
async function proxyPath(url: string, user: Credentials = bob): Promise<string> {
  const res = await get(`/thumbnail?url=${encodeURIComponent(url)}&size=full`, user);
  expect(res.status).toBe(302);
  return res.headers.location!;
}

/** go-camo's plain-text refusal. */
const expectRefusal = (res: Answer, status: number, msg: string) => {
  expect({ status: res.status, type: res.headers["content-type"], body: res.body.toString() }).toEqual({
    status,
    type: "text/plain; charset=utf-8",
    body: `${msg}\n`,
  });
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
};

it("a message's image preview is the image, fetched by the server and never by the reader", async () => {
  const url = `${imageBase}/cat.png`;
  const { id } = await org.call(
    messaging.sendMessage,
    { type: "direct", to: [bob.userId], content: `look: ${url}` },
    alice,
  );
  const html = (await org.call(messaging.getMessage, { message_id: id }, bob)).message.content as string;
  const src = / src="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
  expect(src).toBe(`/thumbnail?url=${encodeURIComponent(url)}&size=thumbnail`);

  const redirect = await get(src, bob, { cookie: "sessionid=reader" });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.location).toMatch(/^\/external_content\/[0-9a-f]{40}\/[0-9a-f]+$/);
  received.length = 0;
  const image = await get(redirect.headers.location!, bob, { cookie: "sessionid=reader" });
  expect(image.status).toBe(200);
  expect(image.body.equals(IMAGE)).toBe(true);
  expect(image.headers).toMatchObject({
    "content-type": "image/png",
    "content-length": String(IMAGE.length),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'",
    "cache-control": "public, max-age=86400",
    etag: '"v1"',
  });
  // the image's host learns nothing of the reader: no credentials, no cookies
  expect(received).toHaveLength(1);
  expect(received[0]!.headers.authorization).toBeUndefined();
  expect(received[0]!.headers.cookie).toBeUndefined();
  expect(received[0]!.headers.host).toBe(new URL(imageBase).host);
});

it("a cached image is revalidated: the host's 304 is passed on", async () => {
  const res = await get(await proxyPath(`${imageBase}/cat.png`), null, { "if-none-match": '"v1"' });
  expect(res.status).toBe(304);
  expect(res.body.length).toBe(0);
});

it("HEAD asks the host for the headers only", async () => {
  received.length = 0;
  const res = await get(await proxyPath(`${imageBase}/cat.png`), null, {}, "HEAD");
  expect({ status: res.status, length: res.body.length }).toEqual({ status: 200, length: 0 });
  expect(res.headers).toMatchObject({ "content-type": "image/png", "content-length": String(IMAGE.length) });
  expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(["HEAD /cat.png"]);
});

it("follows a redirect on the image's host", async () => {
  const res = await get(await proxyPath(`${imageBase}/to-cat.png`), null);
  expect(res.status).toBe(200);
  expect(res.body.equals(IMAGE)).toBe(true);
});

describe("/thumbnail (Zulip's backend_serve_thumbnail)", () => {
  it("needs credentials: Zulip's 401", async () => {
    const res = await get(`/thumbnail?url=${encodeURIComponent(`${imageBase}/cat.png`)}&size=full`, null);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe('Basic realm="zulip"');
    expect(JSON.parse(res.body.toString())).toEqual({
      result: "error",
      code: "UNAUTHORIZED",
      msg: "Not logged in: API authentication or user session required",
    });
  });

  it("needs url and size", async () => {
    for (const [query, name] of [
      ["size=full", "url"],
      [`url=${encodeURIComponent(`${imageBase}/cat.png`)}`, "size"],
    ]) {
      const res = await get(`/thumbnail?${query}`, bob);
      expect({ status: res.status, body: JSON.parse(res.body.toString()) }).toEqual({
        status: 400,
        body: { result: "error", code: "REQUEST_VARIABLE_MISSING", msg: `Missing '${name}' argument`, var_name: name },
      });
    }
  });

  it("sends a path on this server to itself, never to another host", async () => {
    for (const [url, location] of [
      ["/static/images/logo.png", "/static/images/logo.png"],
      ["static/x.png?v=1", "/static/x.png?v=1"],
      ["/.//evil.example/x.png", "/evil.example/x.png"],
    ]) {
      const res = await get(`/thumbnail?url=${encodeURIComponent(url)}&size=full`, bob);
      expect({ url, status: res.status, location: res.headers.location }).toEqual({ url, status: 302, location });
    }
    // a host, however spelled, goes through the proxy
    for (const url of ["//evil.example/x.png", "\\\\evil.example/x.png", "http:evil.example/x.png"]) {
      expect(await proxyPath(url)).toMatch(/^\/external_content\//);
    }
  });

  it("sends an upload to its path for a user who may see it, 403 otherwise (Zulip's validate_thumbnail_request)", async () => {
    const uploaded = await org.api(alice).post("/user_uploads", { file: new File([IMAGE], "cat.png") }, "multipart");
    const path = (uploaded.body as { url: string }).url;
    const thumbnail = `/thumbnail?url=${encodeURIComponent(path.slice(1))}&size=thumbnail`;
    const own = await get(thumbnail, alice);
    expect({ status: own.status, location: own.headers.location }).toEqual({ status: 302, location: path });
    // not yet in a message Bob can read: Bob may not see it
    const other = await get(thumbnail, bob);
    expect({ status: other.status, body: other.body.toString() }).toEqual({
      status: 403,
      body: "<p>You are not authorized to view this file.</p>",
    });
  });
});

describe("/external_content refuses as go-camo does", () => {
  it("a URL the server did not sign: 403", async () => {
    const signed = await proxyPath(`${imageBase}/cat.png`);
    const [, , digest, hexUrl] = signed.split("/");
    const other = Buffer.from(`${imageBase}/page.png`).toString("hex");
    expectRefusal(await get(`/external_content/${digest}/${other}`, null), 403, "Bad Signature");
    expectRefusal(await get(`/external_content/${"0".repeat(40)}/${hexUrl}`, null), 403, "Bad Signature");
    expectRefusal(await get(`/external_content/xyz/${hexUrl}`, null), 403, "Bad Signature");
  });

  it("signed with the key the first gateway made and kept in JetStream, not with a key anyone knows", async () => {
    const kv = await new Kvm(org.nc).open("gateway_secrets");
    const key = (await kv.get("camo_key"))!.string();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const url = `${imageBase}/cat.png`;
    const hexUrl = Buffer.from(url).toString("hex");
    const sign = (k: string) => createHmac("sha1", k).update(url).digest("hex");
    expect(await proxyPath(url)).toBe(`/external_content/${sign(key)}/${hexUrl}`);
    // a fixed key, as one written into source code would be: not the one this deployment made
    const known = sign("teamchat-development-camo-key");
    expectRefusal(await get(`/external_content/${known}/${hexUrl}`, null), 403, "Bad Signature");
  });

  it("a type that is not an image: 400", async () => {
    expectRefusal(await get(await proxyPath(`${imageBase}/page.png`), null), 400, "Unsupported content-type returned");
    expectRefusal(await get(await proxyPath(`${imageBase}/untyped.png`), null), 400, "Empty content-type returned");
  });

  it("a body larger than the limit: 404 when declared, cut off when not", async () => {
    expectRefusal(await get(await proxyPath(`${imageBase}/declared-huge.png`), null), 404, "Content length exceeded");
    const cut = await get(await proxyPath(`${imageBase}/endless.png`), null);
    expect(cut.complete).toBe(false);
    expect(cut.body.length).toBeLessThanOrEqual(MAX_BYTES);
  });

  it("a private address not allowed, directly or by a redirect: 404, never connected to", async () => {
    received.length = 0;
    const port = new URL(privateBase).port;
    for (const url of [
      `${privateBase}/cat.png`,
      `${imageBase}/to-private.png`,
      `http://[::ffff:127.0.0.2]:${port}/cat.png`,
      `http://[::1]:${port}/cat.png`,
      `http://0x7f.2:${port}/cat.png`,
    ]) {
      expectRefusal(await get(await proxyPath(url), null), 404, "Error Fetching Resource");
    }
    expect(received.map((r) => r.host)).toEqual(["127.0.0.1"]);
  });

  it("URLs go-camo never fetches: other schemes, localhost names, credentials in the URL", async () => {
    const port = new URL(imageBase).port;
    for (const [url, msg] of [
      ["file:///etc/passwd", "Bad url scheme"],
      [`http://localhost:${port}/cat.png`, "Bad url host"],
      [`http://user:secret@127.0.0.1:${port}/cat.png`, "Userinfo URL rejected"],
    ]) {
      expectRefusal(await get(await proxyPath(url!), null), 404, msg!);
    }
  });

  it("too many redirects: 404; the host failing: 502; not found: 404", async () => {
    expectRefusal(await get(await proxyPath(`${imageBase}/loop.png`), null), 404, "Error Fetching Resource");
    expectRefusal(await get(await proxyPath(`${imageBase}/broken.png`), null), 502, "Error Fetching Resource");
    expectRefusal(await get(await proxyPath(`${imageBase}/missing.png`), null), 404, "Not Found");
  });
});
