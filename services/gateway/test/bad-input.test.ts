/**
 * Bad input of every kind answers a Zulip error (never a 500) and changes
 * nothing: oversize bodies, deeply nested JSON in a field, invalid UTF-8, huge
 * and negative numbers, wrong types.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { messaging } from "@teamchat/shared";
import { basicAuth } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";

let org: TestOrganization;
beforeAll(async () => {
  org = await testOrganization();
  await org.call(messaging.createChannel, { name: "inputs", subscribers: [org.owner.userId] }, org.owner);
});
afterAll(() => org?.stop());

/**
 * A request with a body of exactly these bytes, as a misbehaving client would
 * send it; or, with `declaredLength`, one announcing a longer body that is
 * still being sent when the reply comes.
 */
function rawRequest(method: string, path: string, body: Buffer, contentType: string, declaredLength?: number) {
  const url = new URL(`${org.api(org.owner).baseUrl}/api/v1${path}`);
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: basicAuth(org.owner),
          host: org.api(org.owner).host ?? url.host,
          "content-type": contentType,
          "content-length": String(declaredLength ?? body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
          req.destroy();
        });
      },
    );
    req.on("error", reject);
    if (declaredLength === undefined) req.end(body);
    else req.write(body);
  });
}

/** What the server writes back to these bytes, sent as they are on a new connection, until it closes it. */
function rawExchange(bytes: string): Promise<string> {
  const url = new URL(org.api(org.owner).baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}

const form = (fields: Record<string, string>) => Buffer.from(new URLSearchParams(fields).toString());
const FORM = "application/x-www-form-urlencoded";

/** How many messages the owner can see in "inputs": each refused send must leave it unchanged. */
const messageCount = async () =>
  (
    await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 1000, num_after: 0, narrow: [{ operator: "channel", operand: "inputs" }] },
      org.owner,
    )
  ).messages.length;

const send = (fields: Record<string, string>) =>
  rawRequest("POST", "/messages", form({ type: "stream", to: "inputs", topic: "t", content: "x", ...fields }), FORM);

describe("bad input answers a Zulip error and changes nothing", () => {
  it("a body over the limit", async () => {
    const before = await messageCount();
    // refused on its Content-Length, before the gateway reads it
    const reply = await rawRequest("POST", "/messages", Buffer.from("content=aaaa"), FORM, 26 * 1024 * 1024);
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
    expect(await messageCount()).toBe(before);
  });

  it("deeply nested JSON in a field", async () => {
    const before = await messageCount();
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    // a body carries any depth; a URL up to Node's 16 KiB header limit
    const deep = nested(100_000);
    for (const reply of [
      await send({ to: deep }),
      await rawRequest(
        "GET",
        `/messages?anchor=newest&num_before=1&num_after=0&narrow=${encodeURIComponent(nested(2_000))}`,
        Buffer.alloc(0),
        FORM,
      ),
    ]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
    }
    expect(await messageCount()).toBe(before);
  });

  it("invalid UTF-8 in a field and in a JSON body", async () => {
    const before = await messageCount();
    const invalid = Buffer.concat([
      Buffer.from("type=stream&to=inputs&topic=t&content="),
      Buffer.from([0xff, 0xfe, 0xc3]),
    ]);
    const reply = await rawRequest("POST", "/messages", invalid, FORM);
    expect(reply).toEqual({
      status: 400,
      body: { result: "error", code: "BAD_REQUEST", msg: "Invalid UTF-8 in the request" },
    });
    const json = await rawRequest(
      "POST",
      "/messages",
      Buffer.concat([Buffer.from('{"content":"'), Buffer.from([0xff]), Buffer.from('"}')]),
      "application/json",
    );
    expect(json).toEqual({
      status: 400,
      body: { result: "error", code: "BAD_REQUEST", msg: "Invalid UTF-8 in the request" },
    });
    expect(await messageCount()).toBe(before);
  });

  it("huge numbers, negative ids and wrong types", async () => {
    const before = await messageCount();
    await expectZulipError(
      org.api(org.owner).get("/messages", { anchor: "1e400", num_before: 1, num_after: 0 }),
      badRequestError("Invalid anchor"),
    );
    await expectZulipError(
      org.api(org.owner).get("/messages", { anchor: "newest", num_before: "99999999999999999999999", num_after: 0 }),
      badRequestError("num_before is too large"),
    );
    await expectZulipError(org.api(org.owner).get("/messages/-1"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Not Found",
    });
    await expectZulipError(org.api(org.owner).get("/messages/99999999999999999999"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Not Found",
    });
    await expectZulipError(
      org.api(org.owner).post("/messages", { type: "stream", to: { a: 1 }, topic: "t", content: "x" }),
      badRequestError("Invalid to"),
    );
    await expectZulipError(
      org.api(org.owner).post("/messages", { type: "private", to: [-5], content: "x" }),
      badRequestError("Invalid user ID -5"),
    );
    await expectZulipError(
      org.api(org.owner).post("/messages", { type: 7, to: "inputs", topic: "t", content: "x" }),
      badRequestError("Invalid type"),
    );
    expect(await messageCount()).toBe(before);
  });

  // found by `npm run fuzz`: busboy's "Multipart: Boundary not found" was a 500
  it("bytes Node's HTTP parser cannot read as a request", async () => {
    // Fastify's own answer would be {"error":"Bad Request","message":"Client Error","statusCode":400}
    const garbage = await rawExchange("THIS IS NOT HTTP\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(garbage.slice(garbage.indexOf("\r\n\r\n") + 4))).toEqual({
      result: "error",
      msg: "Malformed HTTP request",
      code: "BAD_REQUEST",
    });
    const host = new URL(org.api(org.owner).baseUrl).host;
    const oversized = await rawExchange(
      `GET /api/v1/users/me HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(oversized).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(JSON.parse(oversized.slice(oversized.indexOf("\r\n\r\n") + 4))).toEqual({
      result: "error",
      msg: "Request headers too large",
      code: "BAD_REQUEST",
    });
  });

  it("a multipart body without a boundary or cut short", async () => {
    const before = await messageCount();
    const fields = form({ type: "stream", to: "inputs", topic: "t", content: "x" });
    expect(await rawRequest("POST", "/messages", fields, "multipart/form-data")).toEqual({
      status: 400,
      body: { result: "error", code: "BAD_REQUEST", msg: "Malformed multipart body: Multipart: Boundary not found" },
    });
    const cut = Buffer.from('--b\r\nContent-Disposition: form-data; name="content"\r\n\r\nx');
    expect(await rawRequest("POST", "/messages", cut, "multipart/form-data; boundary=b")).toEqual({
      status: 400,
      body: { result: "error", code: "BAD_REQUEST", msg: "Malformed multipart body: Unexpected end of multipart data" },
    });
    expect(await messageCount()).toBe(before);
  });
});

/** A request with no body, as `auth` (none: no Authorization header): its status, Allow header and body. */
function methodRequest(method: string, path: string, auth: "owner" | null = "owner") {
  const api = org.api(org.owner);
  return new Promise<{ status: number; allow: string | undefined; body: unknown }>((resolve, reject) => {
    const req = httpRequest(
      `${api.baseUrl}${path}`,
      {
        method,
        agent: false,
        headers: { host: api.host ?? new URL(api.baseUrl).host, ...(auth && { authorization: basicAuth(org.owner) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode!, allow: res.headers.allow, body: text ? JSON.parse(text) : "" });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Zulip's json_method_not_allowed: 405, the path's methods in Allow and in allowed_methods (no `code`). */
const methodNotAllowed = (...allowed: string[]) => ({
  status: 405,
  allow: allowed.join(", "),
  body: { result: "error", msg: "Method Not Allowed", allowed_methods: allowed },
});

describe("a method the path does not have (Zulip's rest_dispatch)", () => {
  it("answers 405 with the path's methods, HEAD wherever GET is, and changes nothing", async () => {
    const before = await messageCount();
    expect(await methodRequest("DELETE", "/api/v1/messages")).toEqual(methodNotAllowed("GET", "POST", "HEAD"));
    expect(await methodRequest("PUT", "/api/v1/messages")).toEqual(methodNotAllowed("GET", "POST", "HEAD"));
    expect(await methodRequest("POST", "/api/v1/messages/1")).toEqual(
      methodNotAllowed("GET", "PATCH", "DELETE", "HEAD"),
    );
    expect(await methodRequest("GET", "/api/v1/messages/render")).toEqual(methodNotAllowed("POST"));
    expect(await methodRequest("PATCH", "/api/v1/messages/1/reactions")).toEqual(methodNotAllowed("POST", "DELETE"));
    // HEAD has no body
    expect(await methodRequest("HEAD", "/api/v1/messages/render")).toEqual({
      ...methodNotAllowed("POST"),
      body: "",
    });
    expect(await messageCount()).toBe(before);
  });

  it("answers before authentication, as Zulip does", async () => {
    expect(await methodRequest("DELETE", "/api/v1/messages", null)).toEqual(methodNotAllowed("GET", "POST", "HEAD"));
  });

  it("answers OPTIONS with 204 and the methods sorted in Allow", async () => {
    expect(await methodRequest("OPTIONS", "/api/v1/messages")).toEqual({
      status: 204,
      allow: "GET, HEAD, POST",
      body: "",
    });
  });

  it("files outside /api/v1 too: /user_uploads, /thumbnail and the image proxy are GET only", async () => {
    expect(await methodRequest("DELETE", `/user_uploads/${org.realm.id}/ab/cd/file.txt`)).toEqual(
      methodNotAllowed("GET", "HEAD"),
    );
    expect(await methodRequest("POST", "/thumbnail")).toEqual(methodNotAllowed("GET", "HEAD"));
    expect(await methodRequest("PUT", `/external_content/${"0".repeat(40)}/00`)).toEqual(
      methodNotAllowed("GET", "HEAD"),
    );
  });

  it("an unknown path, or a path value no route takes, is still 404", async () => {
    const notFound = {
      status: 404,
      allow: undefined,
      body: { result: "error", code: "BAD_REQUEST", msg: "Not Found" },
    };
    expect(await methodRequest("GET", "/api/v1/no/such/endpoint")).toEqual(notFound);
    expect(await methodRequest("DELETE", "/api/v1/no/such/endpoint")).toEqual(notFound);
    // Zulip's <int:message_id> does not match "abc": no pattern, no method to list
    expect(await methodRequest("POST", "/api/v1/messages/abc")).toEqual(notFound);
    expect(await methodRequest("GET", "/api/v1/messages/abc")).toEqual(notFound);
  });
});
