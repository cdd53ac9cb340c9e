import { BusClient, Role, registerState } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { recordDomainEvents } from "../../../test/support/domain-events";
import { usersOfEveryRole, type RoleUser } from "./helpers";

let sys: TestSystem;
let roles: RoleUser[];
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "1000" } });
  roles = await usersOfEveryRole(sys);
});
afterAll(() => sys?.stop());

const create = (params: Record<string, unknown>) => sys.api(sys.owner).post("/realm/profile_fields", params);
const list = async () =>
  ok(await sys.api(sys.owner).get("/realm/profile_fields")).custom_fields as Array<Record<string, unknown>>;
const expectError = async (params: Record<string, unknown>, msg: string, code = "BAD_REQUEST") => {
  const res = await create(params);
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { result: "error", code, msg } });
};

describe("POST /realm/profile_fields", () => {
  it("creates a short text field with Zulip's defaults; GET lists it; all users get a custom_profile_fields event", async () => {
    const rec = await recordDomainEvents(sys.nc, "realm-config");
    const body = ok(await create({ name: "  Phone number ", hint: "Work phone", field_type: 1 }));
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
      realmId: sys.realm.id,
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
    ] as Array<[number, Record<string, unknown>]>) {
      made[type] = ok(await create({ name: `Type ${type}`, field_type: type, ...extra })).id;
    }
    const fields = await list();
    expect(fields.map((f) => f.order)).toEqual([...fields.map((f) => f.order as number)].sort((a, b) => a - b));
    const byType = Object.fromEntries(fields.map((f) => [f.type as number, f]));
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
    const { id } = ok(await create({ field_type: 7, field_data: { subtype: "github" } }));
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
    expect((await create({ name: "ok" })).body).toEqual({
      result: "error",
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'field_type' argument",
      var_name: "field_type",
    });
    await expectError({ name: "ok", field_type: "short" }, "field_type is not valid JSON");
    await expectError({ name: "ok", field_type: 1, required: "yes" }, "required is not valid JSON");
    await expectError({ name: "ok", field_type: 1, required: 1 }, "required is not a boolean");
    // the longest label and hint are accepted
    ok(await create({ name: "n".repeat(40), hint: "h".repeat(80), field_type: 1 }));
  });

  it("validates list-of-options choices", async () => {
    const bad = (field_data: unknown, msg: string) => expectError({ name: "Editor", field_type: 3, field_data }, msg);
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
    await bad("not json", "field_data is not valid JSON");
    await bad([1], "field_data is not a dict");
  });

  it("validates external accounts", async () => {
    const bad = (field_data: unknown, msg: string) => expectError({ name: "Site", field_type: 7, field_data }, msg);
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
    ok(await create({ name: "Birthday", field_type: 4, display_in_profile_summary: true }));
    await expectError(
      { name: "Website", field_type: 5, display_in_profile_summary: true },
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
    expect((await list()).filter((f) => f.display_in_profile_summary)).toHaveLength(2);
  });

  it("administrators only: owner and administrator may create, others get UNAUTHORIZED_PRINCIPAL", async () => {
    for (const { label, role, user } of roles) {
      const res = await sys.api(user).post("/realm/profile_fields", { name: `By ${label}`, field_type: 1 });
      if (role <= Role.ADMINISTRATOR) expect(res.status).toBe(200);
      else
        expect({ status: res.status, body: res.body }).toEqual({
          status: 400,
          body: { result: "error", code: "UNAUTHORIZED_PRINCIPAL", msg: "Must be an organization administrator" },
        });
    }
    const names = (await list()).map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["By owner", "By administrator"]));
    expect(names).not.toEqual(expect.arrayContaining(["By member"]));
    expect(names.filter((n) => String(n).startsWith("By "))).toHaveLength(2);
  });

  it("GET /realm/profile_fields is open to every role, guests included", async () => {
    const expected = await list();
    for (const { user } of roles) {
      expect(ok(await sys.api(user).get("/realm/profile_fields")).custom_fields).toEqual(expected);
    }
  });

  it("register's custom_profile_fields is the same list", async () => {
    const state = await new BusClient(sys.nc).request(
      registerState("realm-config"),
      {
        fetch_event_types: ["custom_profile_fields"],
        client_gravatar: true,
        include_subscribers: false,
        slim_presence: false,
        client_capabilities: {},
      },
      { realm: sys.realm, actor: null, requestId: "test" },
    );
    expect(state.custom_profile_fields).toEqual(await list());
    expect((state.custom_profile_fields as unknown[]).length).toBeGreaterThan(8);
  });

  it("requires credentials", async () => {
    expect((await sys.api(null).get("/realm/profile_fields")).status).toBe(401);
    expect((await sys.api(null).post("/realm/profile_fields", { name: "x", field_type: 1 })).status).toBe(401);
  });
});
