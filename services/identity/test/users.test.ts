import { createHash } from "node:crypto";
import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser, type TestUser } from "../../../test/support/users";

let sys: TestSystem;
let admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  admin = await makeUser(sys, "admin", 200);
  moderator = await makeUser(sys, "moderator", 300);
  member = await makeUser(sys, "member");
  guest = await makeUser(sys, "guest", 600);
});
afterAll(() => sys?.stop());

const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email).digest("hex")}?d=identicon&version=1`;
const host = () => sys.realm.host.split(":")[0];
const bad = (msg: string, code = "BAD_REQUEST") => ({ result: "error", code, msg });

describe("POST /users", () => {
  it("the owner creates a member who can log in; the reply is {user_id}", async () => {
    const body = ok(
      await sys
        .api(sys.owner)
        .post("/users", { email: "New.Person@example.com", password: "pw-123456", full_name: " New Person " }),
    );
    expect(Object.keys(body).sort()).toEqual(["msg", "result", "user_id"]);
    const { user } = ok(await sys.api(sys.owner).get(`/users/${body.user_id}`, { client_gravatar: false }));
    expect(user).toEqual({
      user_id: body.user_id,
      delivery_email: "new.person@example.com",
      email: "new.person@example.com",
      full_name: "New Person",
      date_joined: expect.any(String),
      is_active: true,
      is_owner: false,
      is_admin: false,
      is_guest: false,
      is_bot: false,
      bot_type: null,
      bot_owner_id: null,
      role: 400,
      timezone: "",
      avatar_url: gravatar("new.person@example.com"),
      avatar_version: 1,
    });
    const login = ok(
      await sys.api(null).post("/fetch_api_key", { username: "new.person@example.com", password: "pw-123456" }),
    );
    expect(login.user_id).toBe(body.user_id);
  });

  it("a duplicate address in the organization → 400 with Zulip's message, any case", async () => {
    const res = await sys
      .api(sys.owner)
      .post("/users", { email: "MEMBER@example.com", password: "x", full_name: "Dup" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(bad("Email 'MEMBER@example.com' already in use"));
  });

  it("an invalid address or name → 400", async () => {
    const res = await sys.api(sys.owner).post("/users", { email: "not-an-email", password: "x", full_name: "Name" });
    expect(res.body).toEqual(bad("Bad name or username"));
    const short = await sys.api(sys.owner).post("/users", { email: "s@example.com", password: "x", full_name: "a" });
    expect(short.body).toEqual(bad("Name too short!"));
    const missing = await sys.api(sys.owner).post("/users", { email: "s@example.com", full_name: "Name" });
    expect(missing.body.code).toBe("REQUEST_VARIABLE_MISSING");
  });

  it("administrators without can_create_users and non-administrators are refused", async () => {
    const params = { email: "x1@example.com", password: "x", full_name: "X One" };
    const byAdmin = await sys.api(admin).post("/users", params);
    expect(byAdmin.status).toBe(400);
    expect(byAdmin.body).toEqual(bad("User not authorized to create users"));
    for (const u of [moderator, member, guest]) {
      const res = await sys.api(u).post("/users", params);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(bad("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL"));
    }
    const all = ok(await sys.api(sys.owner).get("/users")).members as Array<{ email: string }>;
    expect(all.map((m) => m.email)).not.toContain("x1@example.com");
  });
});

describe("GET /users, /users/{user_id}, /users/{email}", () => {
  it("lists every user in id order; avatar_url is null by default (client_gravatar)", async () => {
    const { members } = ok(await sys.api(member).get("/users"));
    const ids = members.map((m: { user_id: number }) => m.user_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toEqual(expect.arrayContaining([sys.owner.userId, admin.userId, member.userId, guest.userId]));
    const owner = members.find((m: { user_id: number }) => m.user_id === sys.owner.userId);
    expect(owner).toMatchObject({ role: 100, is_owner: true, is_admin: true, avatar_url: null });
    expect(owner).not.toHaveProperty("profile_data");
    const full = ok(
      await sys.api(member).get("/users", { client_gravatar: false, include_custom_profile_fields: true }),
    );
    const o2 = full.members.find((m: { user_id: number }) => m.user_id === sys.owner.userId);
    expect(o2.avatar_url).toBe(gravatar("owner@example.com"));
    expect(o2.profile_data).toEqual({});
  });

  it("unknown user id → 400 No such user", async () => {
    const res = await sys.api(member).get("/users/999999");
    expect(res.status).toBe(400);
    expect(res.body).toEqual(bad("No such user"));
  });

  it("by real address and by dummy address; the dummy one must name the realm host", async () => {
    const byReal = ok(await sys.api(member).get(`/users/${admin.email}`));
    expect(byReal.user.user_id).toBe(admin.userId);
    const byDummy = ok(await sys.api(member).get(`/users/user${admin.userId}@${host()}`));
    expect(byDummy.user.user_id).toBe(admin.userId);
    const otherHost = await sys.api(member).get(`/users/user${admin.userId}@elsewhere.example`);
    expect(otherHost.body).toEqual(bad("No such user"));
    expect((await sys.api(member).get("/users/nobody@example.com")).body).toEqual(bad("No such user"));
  });

  it("email_address_visibility: who sees delivery_email, who finds by real address", async () => {
    const hidden = await makeUser(sys, "hidden");
    ok(await sys.api(hidden).patch("/settings", { email_address_visibility: 3 }));
    const dummy = `user${hidden.userId}@${host()}`;
    for (const [viewer, sees] of [
      [sys.owner, true],
      [admin, true],
      [moderator, false],
      [member, false],
      [guest, false],
      [hidden, true],
    ] as const) {
      const { user } = ok(await sys.api(viewer).get(`/users/${hidden.userId}`));
      expect(user.email).toBe(dummy);
      expect(user.delivery_email).toBe(sees ? hidden.email : null);
      // client_gravatar only applies when the viewer knows the address
      expect(user.avatar_url).toBe(sees ? null : gravatar(hidden.email));
      const byReal = await sys.api(viewer).get(`/users/${hidden.email}`);
      if (sees) expect(ok(byReal).user.user_id).toBe(hidden.userId);
      else expect(byReal.body).toEqual(bad("No such user"));
      expect(ok(await sys.api(viewer).get(`/users/${dummy}`)).user.user_id).toBe(hidden.userId);
    }
    // The dummy address also authenticates, as the API email.
    expect(ok(await sys.api({ email: dummy, apiKey: hidden.apiKey }).get("/users/me")).email).toBe(dummy);
  });
});

describe("PATCH /users/{user_id} and /users/{email}", () => {
  it("an administrator changes full_name; everyone sees it", async () => {
    const target = await makeUser(sys, "renamed");
    expect(ok(await sys.api(admin).patch(`/users/${target.userId}`, { full_name: "  Renamed Person " }))).toEqual({
      result: "success",
      msg: "",
    });
    expect(ok(await sys.api(guest).get(`/users/${target.userId}`)).user.full_name).toBe("Renamed Person");
    ok(await sys.api(admin).patch(`/users/${target.email}`, { full_name: "By Email" }));
    expect(ok(await sys.api(target).get("/users/me")).full_name).toBe("By Email");
  });

  it("non-administrators are refused with Insufficient permission", async () => {
    for (const u of [moderator, member, guest]) {
      const res = await sys.api(u).patch(`/users/${member.userId}`, { full_name: "Hacked" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(bad("Insufficient permission"));
    }
    expect(ok(await sys.api(member).get("/users/me")).full_name).toBe("User member");
  });

  it("role rules: owners only for the owner role, the only owner keeps it, guests cannot be administrators", async () => {
    const t = await makeUser(sys, "roles");
    const ownerRequired = bad("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    expect((await sys.api(admin).patch(`/users/${t.userId}`, { role: 100 })).body).toEqual(ownerRequired);
    expect((await sys.api(admin).patch(`/users/${sys.owner.userId}`, { role: 200 })).body).toEqual(ownerRequired);
    expect((await sys.api(sys.owner).patch(`/users/${sys.owner.userId}`, { role: 200 })).body).toEqual(
      bad("The owner permission cannot be removed from the only organization owner."),
    );
    expect((await sys.api(sys.owner).patch(`/users/${guest.userId}`, { role: 200 })).body).toEqual(
      bad("Guests cannot be organization administrators"),
    );
    expect((await sys.api(sys.owner).patch(`/users/${t.userId}`, { role: 500 })).body).toEqual(bad("Invalid role"));
    ok(await sys.api(admin).patch(`/users/${t.userId}`, { role: 300 }));
    expect(ok(await sys.api(t).get("/users/me")).role).toBe(300);
    // The cached credentials follow the role change at once.
    ok(await sys.api(sys.owner).patch(`/users/${t.userId}`, { role: 100 }));
    expect(ok(await sys.api(t).get("/users/me"))).toMatchObject({ role: 100, is_owner: true });
    ok(await sys.api(t).patch(`/users/${sys.owner.userId}`, { role: 100 }));
    ok(await sys.api(sys.owner).patch(`/users/${t.userId}`, { role: 400 }));
    expect(ok(await sys.api(t).get("/users/me")).role).toBe(400);
  });

  it("new_email: owners holding can_change_user_emails only", async () => {
    const t = await makeUser(sys, "mover");
    expect((await sys.api(admin).patch(`/users/${t.userId}`, { new_email: "moved@example.com" })).body).toEqual(
      bad("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"),
    );
    expect((await sys.api(sys.owner).patch(`/users/${t.userId}`, { new_email: admin.email })).body).toEqual(
      bad("Already has an account."),
    );
    ok(await sys.api(sys.owner).patch(`/users/${t.userId}`, { new_email: "Moved@example.com" }));
    const { user } = ok(await sys.api(sys.owner).get(`/users/${t.userId}`));
    expect(user.delivery_email).toBe("moved@example.com");
    expect((await sys.api(t).get("/users/me")).status).toBe(401);
    ok(await sys.api({ email: "moved@example.com", apiKey: t.apiKey }).get("/users/me"));
  });

  it("unknown target → No such user", async () => {
    expect((await sys.api(admin).patch("/users/999999", { full_name: "Nobody" })).body).toEqual(bad("No such user"));
    expect((await sys.api(admin).patch("/users/ghost@example.com", { full_name: "Nobody" })).body).toEqual(
      bad("No such user"),
    );
  });
});

describe("profile_data", () => {
  it("validated against the organization's fields, stored, rendered for text types, cleared by empty values", async () => {
    const field = async (params: Record<string, unknown>) =>
      ok(await sys.api(sys.owner).post("/realm/profile_fields", params)).id as number;
    const phone = await field({ name: "Phone", field_type: 1 });
    const birthday = await field({ name: "Birthday", field_type: 4 });
    const team = await field({ name: "Team", field_type: 3, field_data: { a: { text: "Alpha", order: "1" } } });
    const mentor = await field({ name: "Mentor", field_type: 6 });
    const target = await makeUser(sys, "profiled");
    const patch = (profile_data: unknown) => sys.api(admin).patch(`/users/${target.userId}`, { profile_data });

    expect((await patch([{ id: 999999, value: "x" }])).body).toEqual(bad("Field id 999999 not found."));
    expect((await patch([{ id: phone, value: "x".repeat(51) }])).body).toEqual(
      bad("Phone is too long (limit: 50 characters)"),
    );
    expect((await patch([{ id: birthday, value: "soon" }])).body).toEqual(bad("Birthday is not a date"));
    expect((await patch([{ id: team, value: "z" }])).body).toEqual(bad("'z' is not a valid choice for 'Team'."));
    expect((await patch([{ id: mentor, value: [999999] }])).body).toEqual(bad("Invalid user ID: 999999"));

    ok(
      await patch([
        { id: phone, value: "**555**" },
        { id: birthday, value: "1990-01-02" },
        { id: team, value: "a" },
        { id: mentor, value: [member.userId] },
      ]),
    );
    const opts = { include_custom_profile_fields: true };
    expect(ok(await sys.api(guest).get(`/users/${target.userId}`, opts)).user.profile_data).toEqual({
      [phone]: { value: "**555**", rendered_value: "<p><strong>555</strong></p>" },
      [birthday]: { value: "1990-01-02" },
      [team]: { value: "a" },
      [mentor]: { value: `[${member.userId}]` },
    });
    ok(
      await patch([
        { id: phone, value: "" },
        { id: team, value: null },
      ]),
    );
    expect(
      Object.keys(ok(await sys.api(guest).get(`/users/${target.userId}`, opts)).user.profile_data).map(Number),
    ).toEqual([birthday, mentor].sort((a, b) => a - b));
  });
});
