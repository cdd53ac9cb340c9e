import { createHash } from "node:crypto";
import { identity, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", 200);
  moderator = await org.makeUser("moderator", 300);
  member = await org.makeUser("member");
  guest = await org.makeUser("guest", 600);
});
afterAll(() => org?.stop());

const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email).digest("hex")}?d=identicon&version=1`;
const host = () => org.realm.host.split(":")[0];
const noSuchUser = bad("No such user");
const ownerRequired = bad("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");

const getUser = (viewer: Credentials, user_id: number, opts: Partial<ParamsIn<typeof identity.getUser>> = {}) =>
  org.call(identity.getUser, { user_id, ...opts }, viewer);
const getUserByEmail = (viewer: Credentials, email: string) => org.call(identity.getUserByEmail, { email }, viewer);
const me = (user: Credentials) => org.call(identity.getOwnUser, {}, user);
type UserChanges = Omit<ParamsIn<typeof identity.updateUser>, "user_id">;
const updateUser = (by: Credentials, user_id: number, changes: UserChanges) =>
  org.call(identity.updateUser, { user_id, ...changes }, by);

describe("POST /users", () => {
  it("the owner creates a member who can log in; the reply is {user_id}", async () => {
    const body = await org.call(
      identity.createUser,
      { email: "New.Person@example.com", password: "pw-123456", full_name: " New Person " },
      org.owner,
    );
    expect(Object.keys(body).sort()).toEqual(["msg", "result", "user_id"]);
    const { user } = await getUser(org.owner, body.user_id, { client_gravatar: false });
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
    const login = await org.call(
      identity.fetchApiKey,
      { username: "new.person@example.com", password: "pw-123456" },
      null,
    );
    expect(login.user_id).toBe(body.user_id);
  });

  it("a duplicate address in the organization → 400 with Zulip's message, any case", async () => {
    await expectZulipError(
      org.call(identity.createUser, { email: "MEMBER@example.com", password: "x", full_name: "Dup" }, org.owner),
      bad("Email 'MEMBER@example.com' already in use"),
    );
  });

  it("an invalid address or name → 400", async () => {
    const create = (email: string, full_name: string) =>
      org.call(identity.createUser, { email, password: "x", full_name }, org.owner);
    await expectZulipError(create("not-an-email", "Name"), bad("Bad name or username"));
    await expectZulipError(create("s@example.com", "a"), bad("Name too short!"));
    // without password: what the contract's types refuse
    await expectZulipError(org.api(org.owner).post("/users", { email: "s@example.com", full_name: "Name" }), {
      ...bad("Missing 'password' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "password",
    });
  });

  it("administrators without can_create_users and non-administrators are refused", async () => {
    const params = { email: "x1@example.com", password: "x", full_name: "X One" };
    await expectZulipError(org.call(identity.createUser, params, admin), bad("User not authorized to create users"));
    for (const u of [moderator, member, guest]) {
      await expectZulipError(
        org.call(identity.createUser, params, u),
        bad("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL"),
      );
    }
    const all = (await org.call(identity.getUsers, {}, org.owner)).members;
    expect(all.map((m) => m.email)).not.toContain("x1@example.com");
  });
});

describe("GET /users, /users/{user_id}, /users/{email}", () => {
  it("lists every user in id order; avatar_url is null by default (client_gravatar)", async () => {
    const { members } = await org.call(identity.getUsers, {}, member);
    const ids = members.map((m) => m.user_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toEqual(expect.arrayContaining([org.owner.userId, admin.userId, member.userId, guest.userId]));
    const owner = members.find((m) => m.user_id === org.owner.userId);
    expect(owner).toMatchObject({ role: 100, is_owner: true, is_admin: true, avatar_url: null });
    expect(owner).not.toHaveProperty("profile_data");
    const full = await org.call(
      identity.getUsers,
      { client_gravatar: false, include_custom_profile_fields: true },
      member,
    );
    const o2 = full.members.find((m) => m.user_id === org.owner.userId)!;
    expect(o2.avatar_url).toBe(gravatar("owner@example.com"));
    expect(o2.profile_data).toEqual({});
  });

  it("unknown user id → 400 No such user", async () => {
    await expectZulipError(getUser(member, 999999), noSuchUser);
  });

  it("by real address and by dummy address; the dummy one must name the realm host", async () => {
    expect((await getUserByEmail(member, admin.email)).user.user_id).toBe(admin.userId);
    expect((await getUserByEmail(member, `user${admin.userId}@${host()}`)).user.user_id).toBe(admin.userId);
    await expectZulipError(getUserByEmail(member, `user${admin.userId}@elsewhere.example`), noSuchUser);
    await expectZulipError(getUserByEmail(member, "nobody@example.com"), noSuchUser);
  });

  it("email_address_visibility: who sees delivery_email, who finds by real address", async () => {
    const hidden = await org.makeUser("hidden");
    await org.call(identity.updateSettings, { email_address_visibility: 3 }, hidden);
    const dummy = `user${hidden.userId}@${host()}`;
    for (const [viewer, sees] of [
      [org.owner, true],
      [admin, true],
      [moderator, false],
      [member, false],
      [guest, false],
      [hidden, true],
    ] as const) {
      const { user } = await getUser(viewer, hidden.userId);
      expect(user.email).toBe(dummy);
      expect(user.delivery_email).toBe(sees ? hidden.email : null);
      // client_gravatar only applies when the viewer knows the address
      expect(user.avatar_url).toBe(sees ? null : gravatar(hidden.email));
      const byReal = getUserByEmail(viewer, hidden.email);
      if (sees) expect((await byReal).user.user_id).toBe(hidden.userId);
      else await expectZulipError(byReal, noSuchUser);
      expect((await getUserByEmail(viewer, dummy)).user.user_id).toBe(hidden.userId);
    }
    // The dummy address also authenticates, as the API email.
    expect((await me({ email: dummy, apiKey: hidden.apiKey })).email).toBe(dummy);
  });
});

describe("PATCH /users/{user_id} and /users/{email}", () => {
  it("an administrator changes full_name; everyone sees it", async () => {
    const target = await org.makeUser("renamed");
    expect(await updateUser(admin, target.userId, { full_name: "  Renamed Person " })).toEqual({
      result: "success",
      msg: "",
    });
    expect((await getUser(guest, target.userId)).user.full_name).toBe("Renamed Person");
    await org.call(identity.updateUserByEmail, { email: target.email, full_name: "By Email" }, admin);
    expect((await me(target)).full_name).toBe("By Email");
  });

  it("non-administrators are refused with Insufficient permission", async () => {
    for (const u of [moderator, member, guest]) {
      await expectZulipError(updateUser(u, member.userId, { full_name: "Hacked" }), bad("Insufficient permission"));
    }
    expect((await me(member)).full_name).toBe("User member");
  });

  it("role rules: owners only for the owner role, the only owner keeps it, guests cannot be administrators", async () => {
    const t = await org.makeUser("roles");
    await expectZulipError(updateUser(admin, t.userId, { role: 100 }), ownerRequired);
    await expectZulipError(updateUser(admin, org.owner.userId, { role: 200 }), ownerRequired);
    await expectZulipError(
      updateUser(org.owner, org.owner.userId, { role: 200 }),
      bad("The owner permission cannot be removed from the only organization owner."),
    );
    await expectZulipError(
      updateUser(org.owner, guest.userId, { role: 200 }),
      bad("Guests cannot be organization administrators"),
    );
    // a role Zulip does not have: what the contract's types refuse
    await expectZulipError(org.api(org.owner).patch(`/users/${t.userId}`, { role: 500 }), bad("Invalid role"));
    await updateUser(admin, t.userId, { role: 300 });
    expect((await me(t)).role).toBe(300);
    // The cached credentials follow the role change at once.
    await updateUser(org.owner, t.userId, { role: 100 });
    expect(await me(t)).toMatchObject({ role: 100, is_owner: true });
    await updateUser(t, org.owner.userId, { role: 100 });
    await updateUser(org.owner, t.userId, { role: 400 });
    expect((await me(t)).role).toBe(400);
  });

  it("new_email: owners holding can_change_user_emails only", async () => {
    const t = await org.makeUser("mover");
    await expectZulipError(updateUser(admin, t.userId, { new_email: "moved@example.com" }), ownerRequired);
    await expectZulipError(updateUser(org.owner, t.userId, { new_email: admin.email }), bad("Already has an account."));
    await updateUser(org.owner, t.userId, { new_email: "Moved@example.com" });
    const { user } = await getUser(org.owner, t.userId);
    expect(user.delivery_email).toBe("moved@example.com");
    await expectZulipError(me(t), { status: 401, code: "INVALID_API_KEY", msg: "Invalid API key" });
    await me({ email: "moved@example.com", apiKey: t.apiKey });
  });

  it("unknown target → No such user", async () => {
    await expectZulipError(updateUser(admin, 999999, { full_name: "Nobody" }), noSuchUser);
    await expectZulipError(
      org.call(identity.updateUserByEmail, { email: "ghost@example.com", full_name: "Nobody" }, admin),
      noSuchUser,
    );
  });
});

describe("profile_data", () => {
  it("validated against the organization's fields, stored, rendered for text types, cleared by empty values", async () => {
    const field = async (params: ParamsIn<typeof realmConfig.createProfileField>) =>
      (await org.call(realmConfig.createProfileField, params, org.owner)).id;
    const phone = await field({ name: "Phone", field_type: 1 });
    const birthday = await field({ name: "Birthday", field_type: 4 });
    const team = await field({ name: "Team", field_type: 3, field_data: { a: { text: "Alpha", order: "1" } } });
    const mentor = await field({ name: "Mentor", field_type: 6 });
    const target = await org.makeUser("profiled");
    const patch = (profile_data: UserChanges["profile_data"]) => updateUser(admin, target.userId, { profile_data });

    await expectZulipError(patch([{ id: 999999, value: "x" }]), bad("Field id 999999 not found."));
    await expectZulipError(
      patch([{ id: phone, value: "x".repeat(51) }]),
      bad("Phone is too long (limit: 50 characters)"),
    );
    await expectZulipError(patch([{ id: birthday, value: "soon" }]), bad("Birthday is not a date"));
    await expectZulipError(patch([{ id: team, value: "z" }]), bad("'z' is not a valid choice for 'Team'."));
    await expectZulipError(patch([{ id: mentor, value: [999999] }]), bad("Invalid user ID: 999999"));

    await patch([
      { id: phone, value: "**555**" },
      { id: birthday, value: "1990-01-02" },
      { id: team, value: "a" },
      { id: mentor, value: [member.userId] },
    ]);
    const opts = { include_custom_profile_fields: true };
    expect((await getUser(guest, target.userId, opts)).user.profile_data).toEqual({
      [phone]: { value: "**555**", rendered_value: "<p><strong>555</strong></p>" },
      [birthday]: { value: "1990-01-02" },
      [team]: { value: "a" },
      [mentor]: { value: `[${member.userId}]` },
    });
    await patch([
      { id: phone, value: "" },
      { id: team, value: null },
    ]);
    expect(Object.keys((await getUser(guest, target.userId, opts)).user.profile_data!).map(Number)).toEqual(
      [birthday, mentor].sort((a, b) => a - b),
    );
  });
});
