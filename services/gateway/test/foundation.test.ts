import { ok } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";

let sys: TestOrganization;
beforeAll(async () => {
  sys = await testOrganization();
});
afterAll(() => sys?.stop());

describe("authentication", () => {
  it("GET /users/me answers the owner's own record", async () => {
    const body = ok(await sys.api(sys.owner).get("/users/me"));
    expect(body).toMatchObject({
      result: "success",
      msg: "",
      user_id: sys.owner.userId,
      email: "owner@example.com",
      delivery_email: "owner@example.com",
      full_name: "Test Owner",
      role: 100,
      is_owner: true,
      is_admin: true,
      is_guest: false,
      is_bot: false,
      is_active: true,
      avatar_version: 1,
      timezone: "",
    });
    expect(body.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
    expect(Number.isNaN(Date.parse(body.date_joined))).toBe(false);
  });

  it("no credentials → 401 UNAUTHORIZED with WWW-Authenticate", async () => {
    const res = await sys.api(null).get("/users/me");
    expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
    await expectZulipError(res, {
      status: 401,
      code: "UNAUTHORIZED",
      msg: "Not logged in: API authentication or user session required",
    });
  });

  it("malformed Authorization header → 401 UNAUTHORIZED", async () => {
    for (const authorization of ["Bearer abc", "Basic " + Buffer.from("no-colon").toString("base64"), "Basic"]) {
      const res = await sys.api({ authorization }).get("/users/me");
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    }
  });

  it("wrong key → 401 INVALID_API_KEY; key of another account → 401 INVALID_API_KEY", async () => {
    const wrong = await sys.api({ email: sys.owner.email, apiKey: "a".repeat(32) }).get("/users/me");
    expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
    await expectZulipError(wrong, { status: 401, code: "INVALID_API_KEY", msg: "Invalid API key" });
    const mismatch = await sys.api({ email: "someone@example.com", apiKey: sys.owner.apiKey }).get("/users/me");
    await expectZulipError(mismatch, { status: 401, code: "INVALID_API_KEY", msg: "Invalid API key" });
    const short = await sys.api({ email: sys.owner.email, apiKey: "short" }).get("/users/me");
    await expectZulipError(short, { status: 401, code: "INVALID_API_KEY", msg: "Malformed API key" });
  });

  it("the email is case-insensitive", async () => {
    ok(await sys.api({ email: "OWNER@Example.com", apiKey: sys.owner.apiKey }).get("/users/me"));
  });

  it("credentials are accepted for the same user through the auth cache", async () => {
    for (let i = 0; i < 2; i++) ok(await sys.api(sys.owner).get("/users/me"));
  });
});

describe("parameters and replies", () => {
  it("unknown parameters are listed, sorted, in ignored_parameters_unsupported", async () => {
    const body = ok(await sys.api(sys.owner).get("/users/me", { zeta: 1, alpha: "x" }));
    expect(body.ignored_parameters_unsupported).toEqual(["alpha", "zeta"]);
  });

  it("a field named like a path parameter is ignored: the path's value counts", async () => {
    const body = ok(await sys.api(sys.owner).get(`/users/${sys.owner.userId}`, { user_id: 0 }));
    expect(body.user).toMatchObject({ user_id: sys.owner.userId });
    expect(body.ignored_parameters_unsupported).toEqual(["user_id"]);
  });

  it("no ignored_parameters_unsupported when every parameter is known", async () => {
    const body = ok(await sys.api(sys.owner).get("/users/me"));
    expect(body).not.toHaveProperty("ignored_parameters_unsupported");
  });

  it("unknown route → 404 JSON error", async () => {
    await expectZulipError(sys.api(sys.owner).get("/no/such/endpoint"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Not Found",
    });
  });

  it("a missing required argument → 400 REQUEST_VARIABLE_MISSING with var_name", async () => {
    await expectZulipError(sys.api(null).post("/fetch_api_key", { username: sys.owner.email }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'password' argument",
      var_name: "password",
    });
  });

  it("parameters arrive form-encoded, multipart, or in the query string", async () => {
    const params = { username: sys.owner.email, password: sys.owner.password };
    for (const encoding of ["form", "multipart", "query"] as const) {
      const body = ok(await sys.api(null).post("/fetch_api_key", params, encoding));
      expect(body.email).toBe(sys.owner.email);
    }
  });
});

describe("POST /fetch_api_key", () => {
  it("issues a working 32-character key for the right password", async () => {
    const body = ok(
      await sys.api(null).post("/fetch_api_key", { username: sys.owner.email, password: sys.owner.password }),
    );
    expect(body).toEqual({
      result: "success",
      msg: "",
      api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      email: sys.owner.email,
      user_id: sys.owner.userId,
    });
    const me = ok(await sys.api({ email: sys.owner.email, apiKey: body.api_key }).get("/users/me"));
    expect(me.user_id).toBe(sys.owner.userId);
  });

  it("wrong password → 401 AUTHENTICATION_FAILED; after 5 failures → 429 RATE_LIMIT_HIT even with the right password", async () => {
    const username = "nobody@example.com";
    for (let i = 0; i < 5; i++) {
      await expectZulipError(sys.api(null).post("/fetch_api_key", { username, password: "wrong" }), {
        status: 401,
        code: "AUTHENTICATION_FAILED",
        msg: "Your username or password is incorrect",
      });
    }
    const limited = await sys.api(null).post("/fetch_api_key", { username, password: "wrong" });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("RATE_LIMIT_HIT");
    expect(limited.body["retry-after"]).toBeGreaterThan(0);
  });
});

describe("GET /server_settings", () => {
  it("answers without authentication, with version and realm", async () => {
    const body = ok(await sys.api(null).get("/server_settings"));
    expect(body).toMatchObject({
      zulip_version: expect.any(String),
      zulip_feature_level: 417,
      realm_uri: `http://${sys.realm.host}`,
      realm_url: `http://${sys.realm.host}`,
      realm_name: "Test Organization",
      push_notifications_enabled: false,
      authentication_methods: expect.objectContaining({ password: true }),
    });
  });

  it("answers authenticated too (the terminal client does so at start)", async () => {
    expect(ok(await sys.api(sys.owner).get("/server_settings")).zulip_version).toEqual(expect.any(String));
  });
});

describe("health and failures of services", () => {
  it("GET /health reports NATS and every service", async () => {
    const res = await fetch(`${sys.baseUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ok",
      nats: "ok",
      services: { identity: "ok", messaging: "ok", "realm-config": "ok", notifications: "ok" },
    });
  });
});
