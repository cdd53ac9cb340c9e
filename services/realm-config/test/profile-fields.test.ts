import { BusClient, Role, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { expectZulipError } from "../../../test/support/call";
import { recordDomainEvents } from "../../../test/support/domain-events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { usersOfEveryRole, type RoleUser } from "./helpers";

let org: TestOrganization;
let roles: RoleUser[];
beforeAll(async () => {
  org = await testOrganization();
  roles = await usersOfEveryRole(org);
});
afterAll(() => org?.stop());

type CreateParams = ParamsIn<typeof realmConfig.createProfileField>;

const create = (params: CreateParams, user: Credentials = org.owner) =>
  org.call(realmConfig.createProfileField, params, user);
/** What the contract's types refuse (missing or mistyped parameters), sent as is. */
const createRaw = (params: Record<string, unknown>) => org.api(org.owner).post("/realm/profile_fields", params);
const list = async (user: Credentials = org.owner) =>
  (await org.call(realmConfig.listProfileFields, {}, user)).custom_fields;
const refused = (call: Promise<unknown>, msg: string) =>
  expectZulipError(call, { status: 400, code: "BAD_REQUEST", msg });
const expectError = (params: CreateParams, msg: string) => refused(create(params), msg);

describe("POST /realm/profile_fields", () => {
  it("creates a short text field with Zulip's defaults; GET lists it; all users get a custom_profile_fields event", async () => {
    const rec = await recordDomainEvents(org, "realm-config");
    const body = await create({ name: "  Phone number ", hint: "Work phone", field_type: 1 });
    expect(Object.keys(body).sort()).toEqual(["id", "msg", "result"]);
    const field = {
      id: body.id,
      name: "Phone number",
      type: 1,
      hint: "Work phone",
      field_data: "",
      order: body.id,
      required: false,
      editable_by_user: true,
    };
    expect(await list()).toEqual([field]);
    const [ev] = await rec.next();
    rec.stop();
    expect(ev).toEqual({
      realmId: org.realm.id,
      userIds: "all",
      event: { type: "custom_profile_fields", fields: [field] },
    });
  });

  it("all eight field types; list sorted by order; flags stored as sent", async () => {
    const made: Record<number, number> = {};
    const choices = { "0": { text: "Vim", order: "1" }, "1": { text: "Emacs", order: "2" } };
    for (const [type, extra] of [
      [2, {}],
      [3, { field_data: choices }],
      [4, { required: true }],
      [5, { editable_by_user: false }],
      [6, {}],
      [7, { field_data: { subtype: "custom", url_pattern: "https://example.com/u/%(username)s" } }],
      [8, { display_in_profile_summary: true }],
    ] as Array<[number, Partial<CreateParams>]>) {
      made[type] = (await create({ name: `Type ${type}`, field_type: type, ...extra })).id;
    }
    const fields = await list();
    expect(fields.map((f) => f.order)).toEqual([...fields.map((f) => f.order)].sort((a, b) => a - b));
    const byType = Object.fromEntries(fields.map((f) => [f.type, f]));
    expect(Object.keys(byType).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(byType[3]).toMatchObject({ id: made[3], field_data: JSON.stringify(choices) });
    expect(byType[4]).toMatchObject({ required: true, field_data: "" });
    expect(byType[5]).toMatchObject({ editable_by_user: false });
    expect(byType[7]).toMatchObject({
      field_data: '{"subtype":"custom","url_pattern":"https://example.com/u/%(username)s"}',
    });
    expect(byType[8]).toMatchObject({ display_in_profile_summary: true });
    expect(byType[2]).not.toHaveProperty("display_in_profile_summary");
  });

  it("a ready-made external account takes Zulip's label and keeps only the subtype", async () => {
    const { id } = await create({ field_type: 7, field_data: { subtype: "github" } });
    expect((await list()).find((f) => f.id === id)).toEqual({
      id,
      name: "GitHub username",
      type: 7,
      hint: "",
      field_data: '{"subtype":"github"}',
      order: id,
      required: false,
      editable_by_user: true,
    });
  });

  it("refuses a duplicate label", async () => {
    await expectError({ name: "Phone number", field_type: 2 }, "A field with that label already exists.");
  });

  it("validates name, hint and type as Zulip does", async () => {
    await expectError({ field_type: 1 }, "Label cannot be blank.");
    await expectError({ name: "   ", field_type: 1 }, "Label cannot be blank.");
    await expectError({ name: "x".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)");
    await expectError({ name: "ok", hint: "h".repeat(81), field_type: 1 }, "hint is too long (limit: 80 characters)");
    await expectError({ name: "ok", field_type: 9 }, "Invalid field type.");
    await expectError({ name: "ok", field_type: 0 }, "Invalid field type.");
    await expectZulipError(createRaw({ name: "ok" }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'field_type' argument",
      var_name: "field_type",
    });
    await refused(createRaw({ name: "ok", field_type: "short" }), "field_type is not valid JSON");
    await refused(createRaw({ name: "ok", field_type: 1, required: "yes" }), "required is not valid JSON");
    await refused(createRaw({ name: "ok", field_type: 1, required: 1 }), "required is not a boolean");
    // the longest label and hint are accepted
    await create({ name: "n".repeat(40), hint: "h".repeat(80), field_type: 1 });
  });

  it("validates list-of-options choices", async () => {
    const bad = (field_data: CreateParams["field_data"], msg: string) =>
      expectError({ name: "Editor", field_type: 3, field_data }, msg);
    await bad({}, "Field must have at least one choice.");
    await bad({ " ": { text: "Vim", order: "1" } }, "'value' cannot be blank.");
    await bad({ a: "Vim" }, "field_data is not a dict");
    await bad({ a: { order: "1" } }, "text key is missing from field_data");
    await bad({ a: { text: "Vim" } }, "order key is missing from field_data");
    await bad({ a: { text: " ", order: "1" } }, 'field_data["text"] cannot be blank.');
    await bad({ a: { text: "Vim", order: "1", color: "red" } }, "Unexpected arguments: color");
    await bad(
      { a: { text: "Vim", order: "1" }, b: { text: "Vim", order: "2" } },
      "Field must not have duplicate choices.",
    );
    // not a dict at all: what the types refuse
    const badRaw = (field_data: unknown, msg: string) =>
      refused(createRaw({ name: "Editor", field_type: 3, field_data }), msg);
    await badRaw("not json", "field_data is not valid JSON");
    await badRaw([1], "field_data is not a dict");
  });

  it("validates external accounts", async () => {
    const bad = (field_data: CreateParams["field_data"], msg: string) =>
      expectError({ name: "Site", field_type: 7, field_data }, msg);
    await bad({}, "subtype key is missing from field_data");
    await bad({ subtype: "" }, 'field_data["subtype"] cannot be blank.');
    await bad({ subtype: "myspace" }, "Invalid external account type");
    await bad({ subtype: "custom" }, "Custom external account must define URL pattern");
    await bad({ subtype: "custom", url_pattern: "https://example.com/" }, "URL pattern must contain '%(username)s'.");
    await bad({ subtype: "custom", url_pattern: "not a url %(username)s" }, 'field_data["url_pattern"] is not a URL');
    await bad({ subtype: "github", extra: "x" }, "Unexpected arguments: extra");
  });

  it("display_in_profile_summary: not for long text or person picker; at most 2 per organization", async () => {
    await expectError(
      { name: "Bio", field_type: 2, display_in_profile_summary: true },
      "Field type not supported for display in profile summary.",
    );
    await expectError(
      { name: "Mentor", field_type: 6, display_in_profile_summary: true },
      "Field type not supported for display in profile summary.",
    );
    // one exists already (type 8 above)
    await create({ name: "Birthday", field_type: 4, display_in_profile_summary: true });
    await expectError(
      { name: "Website", field_type: 5, display_in_profile_summary: true },
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
    expect((await list()).filter((f) => f.display_in_profile_summary)).toHaveLength(2);
  });

  it("administrators only: owner and administrator may create, others get UNAUTHORIZED_PRINCIPAL", async () => {
    for (const { label, role, user } of roles) {
      const res = create({ name: `By ${label}`, field_type: 1 }, user);
      if (role <= Role.ADMINISTRATOR) expect((await res).result).toBe("success");
      else
        await expectZulipError(res, {
          status: 400,
          code: "UNAUTHORIZED_PRINCIPAL",
          msg: "Must be an organization administrator",
        });
    }
    const names = (await list()).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["By owner", "By administrator"]));
    expect(names).not.toEqual(expect.arrayContaining(["By member"]));
    expect(names.filter((n) => n.startsWith("By "))).toHaveLength(2);
  });

  it("GET /realm/profile_fields is open to every role, guests included", async () => {
    const expected = await list();
    for (const { user } of roles) {
      expect(await list(user)).toEqual(expected);
    }
  });

  it("register's custom_profile_fields is the same list", async () => {
    const state = await new BusClient(org.nc).request(
      realmConfig.registerState,
      {
        fetch_event_types: ["custom_profile_fields"],
        client_gravatar: true,
        include_subscribers: false,
        slim_presence: false,
        client_capabilities: {},
      },
      { realm: org.realm, actor: null, requestId: "test" },
    );
    expect(state.custom_profile_fields).toEqual(await list());
    expect((state.custom_profile_fields as unknown[]).length).toBeGreaterThan(8);
  });

  it("requires credentials", async () => {
    // HTTP authentication: no credentials, 401
    expect((await org.api(null).get("/realm/profile_fields")).status).toBe(401);
    expect((await org.api(null).post("/realm/profile_fields", { name: "x", field_type: 1 })).status).toBe(401);
  });
});
