import { identity, realmConfig, Role, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { usersOfEveryRole, type RoleUser } from "./helpers";

let org: TestOrganization;
let roles: RoleUser[];
let holder: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  roles = await usersOfEveryRole(org);
  holder = await org.makeUser("holder");
});
afterAll(() => org?.stop());

type UpdateParams = Omit<ParamsIn<typeof realmConfig.updateProfileField>, "field_id">;

const create = async (params: ParamsIn<typeof realmConfig.createProfileField>) =>
  (await org.call(realmConfig.createProfileField, params, org.owner)).id;
const update = (field_id: number, params: UpdateParams, user: Credentials = org.owner) =>
  org.call(realmConfig.updateProfileField, { field_id, ...params }, user);
const remove = (field_id: number, user: Credentials = org.owner) =>
  org.call(realmConfig.deleteProfileField, { field_id }, user);
const reorder = (order: number[], user: Credentials = org.owner) =>
  org.call(realmConfig.reorderProfileFields, { order }, user);
const list = async () => (await org.call(realmConfig.listProfileFields, {}, org.owner)).custom_fields;
const field = async (id: number) => (await list()).find((f) => f.id === id);
const refused = (call: Promise<unknown>, msg: string) => expectZulipError(call, badRequestError(msg));
const notAdmin = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");

const setValues = (profile_data: Array<{ id: number; value: string | number[] }>) =>
  org.call(identity.updateUser, { user_id: holder.userId, profile_data }, org.owner);
const profileData = async () =>
  (await org.call(identity.getUser, { user_id: holder.userId, include_custom_profile_fields: true }, org.owner)).user
    .profile_data;
/** identity drops values on realm-config's event: wait (bounded) until it has. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached within 5 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("PATCH /realm/profile_fields/{field_id}", () => {
  it("changes what is sent, keeps the rest; everyone gets the whole list", async () => {
    const id = await create({ name: "Phone", hint: "Work", field_type: 1 });
    const reader = await EventReader.register(org.api(holder), { event_types: ["custom_profile_fields"] });
    expect(await update(id, { name: "  Mobile ", required: true })).toEqual({ result: "success", msg: "" });
    const after = {
      id,
      name: "Mobile",
      type: 1,
      hint: "Work",
      field_data: "",
      order: id,
      required: true,
      editable_by_user: true,
    };
    expect(await field(id)).toEqual(after);
    await update(id, { hint: "", editable_by_user: false, display_in_profile_summary: true });
    expect(await field(id)).toEqual({
      ...after,
      hint: "",
      editable_by_user: false,
      display_in_profile_summary: true,
    });
    await update(id, { display_in_profile_summary: false });
    expect(await field(id)).not.toHaveProperty("display_in_profile_summary");
    const events = await reader.until((e) => e.length >= 3);
    expect(events.map((e) => e.type)).toEqual([
      "custom_profile_fields",
      "custom_profile_fields",
      "custom_profile_fields",
    ]);
    expect(events[2]).toEqual({ id: events[2]!.id, type: "custom_profile_fields", fields: await list() });
  });

  it("keeps the rules of creation: label, hint, unique label, summary types, field data", async () => {
    const id = await create({ name: "Desk", field_type: 1 });
    await create({ name: "Office", field_type: 1 });
    const before = await field(id);
    await refused(update(id, { name: "  " }), "Label cannot be blank.");
    await refused(update(id, { name: "x".repeat(41) }), "name is too long (limit: 40 characters)");
    await refused(update(id, { hint: "h".repeat(81) }), "hint is too long (limit: 80 characters)");
    await refused(update(id, { name: "Office" }), "A field with that label already exists.");
    const bio = await create({ name: "Bio", field_type: 2 });
    await refused(
      update(bio, { display_in_profile_summary: true }),
      "Field type not supported for display in profile summary.",
    );
    const editor = await create({ name: "Editor", field_type: 3, field_data: { a: { text: "Vim", order: "1" } } });
    await refused(update(editor, { field_data: {} }), "Field must have at least one choice.");
    await refused(
      update(editor, { field_data: { a: { text: "Vim", order: "1" }, b: { text: "Vim", order: "2" } } }),
      "Field must not have duplicate choices.",
    );
    const site = await create({
      name: "Site",
      field_type: 7,
      field_data: { subtype: "custom", url_pattern: "https://example.com/%(username)s" },
    });
    await refused(
      update(site, { field_data: { subtype: "custom", url_pattern: "https://example.com/" } }),
      "URL pattern must contain '%(username)s'.",
    );
    await refused(update(999999, { name: "x" }), "Field id 999999 not found.");
    expect(await field(id)).toEqual(before);
    // field_data is ignored for types that have none
    await update(id, { field_data: { a: "b" } });
    expect((await field(id))!.field_data).toBe("");
  });

  it("at most 2 in the profile summary, the field itself not counted", async () => {
    const [a, b, c] = [
      await create({ name: "Sum A", field_type: 1 }),
      await create({ name: "Sum B", field_type: 1 }),
      await create({ name: "Sum C", field_type: 1 }),
    ];
    for (const f of await list())
      if (f.display_in_profile_summary) await update(f.id, { display_in_profile_summary: false });
    await update(a!, { display_in_profile_summary: true });
    await update(b!, { display_in_profile_summary: true });
    await update(b!, { display_in_profile_summary: true, name: "Sum B2" });
    await refused(
      update(c!, { display_in_profile_summary: true }),
      "Only 2 custom profile fields can be displayed in the profile summary.",
    );
    expect((await list()).filter((f) => f.display_in_profile_summary).map((f) => f.id)).toEqual([a, b]);
  });

  it("a ready-made external account changes only its flags", async () => {
    const gh = await create({ field_type: 7, field_data: { subtype: "github" } });
    await refused(update(gh, { name: "My GitHub" }), "Default custom field cannot be updated.");
    await refused(update(gh, { hint: "yours" }), "Default custom field cannot be updated.");
    await refused(update(gh, { field_data: { subtype: "twitter" } }), "Default custom field cannot be updated.");
    // the current values may be sent back
    await update(gh, { name: "GitHub username", field_data: { subtype: "github" }, required: true });
    expect(await field(gh)).toMatchObject({
      name: "GitHub username",
      field_data: '{"subtype":"github"}',
      required: true,
    });
  });

  it("removing a list choice drops the values naming it, with a realm_user update", async () => {
    const team = await create({
      name: "Team",
      field_type: 3,
      field_data: { a: { text: "Alpha", order: "1" }, b: { text: "Beta", order: "2" } },
    });
    await setValues([{ id: team, value: "a" }]);
    const reader = await EventReader.register(org.api(org.owner), {
      event_types: ["realm_user", "custom_profile_fields"],
    });
    await update(team, { field_data: { b: { text: "Beta", order: "1" } } });
    expect((await field(team))!.field_data).toBe('{"b":{"text":"Beta","order":"1"}}');
    const events = await reader.until((e) => e.some((x) => x.type === "realm_user"));
    expect(events.find((e) => e.type === "realm_user")).toEqual({
      id: expect.any(Number),
      type: "realm_user",
      op: "update",
      person: { user_id: holder.userId, custom_profile_field: { id: team, value: null } },
    });
    await eventually(async () => !((await profileData()) ?? {})[team]);
  });

  it("administrators only", async () => {
    const id = await create({ name: "Perm", field_type: 1 });
    for (const { label, role, user } of roles) {
      const call = update(id, { hint: label }, user);
      if (role <= Role.ADMINISTRATOR) expect(await call).toEqual({ result: "success", msg: "" });
      else await expectZulipError(call, notAdmin);
    }
    expect((await field(id))!.hint).toBe("administrator");
  });
});

describe("DELETE /realm/profile_fields/{field_id}", () => {
  it("deletes the field and users' values for it; everyone gets the list without it", async () => {
    const id = await create({ name: "Pager", field_type: 1 });
    const kept = await create({ name: "Room", field_type: 1 });
    await setValues([
      { id, value: "123" },
      { id: kept, value: "42" },
    ]);
    const reader = await EventReader.register(org.api(holder), { event_types: ["custom_profile_fields"] });
    expect(await remove(id)).toEqual({ result: "success", msg: "" });
    expect(await field(id)).toBeUndefined();
    const [event] = await reader.until((e) => e.length >= 1);
    expect(event).toEqual({ id: event!.id, type: "custom_profile_fields", fields: await list() });
    await eventually(async () => !((await profileData()) ?? {})[id]);
    expect((await profileData())![kept]).toEqual({ value: "42", rendered_value: "<p>42</p>" });
    await refused(remove(id), `Field id ${id} not found.`);
  });

  it("administrators only; others change nothing", async () => {
    for (const { label, role, user } of roles) {
      const id = await create({ name: `Gone ${label}`, field_type: 1 });
      const call = remove(id, user);
      if (role <= Role.ADMINISTRATOR) {
        expect(await call).toEqual({ result: "success", msg: "" });
        expect(await field(id)).toBeUndefined();
      } else {
        await expectZulipError(call, notAdmin);
        expect(await field(id)).toBeDefined();
      }
    }
  });
});

describe("PATCH /realm/profile_fields (reorder)", () => {
  it("orders the fields as listed; everyone gets the new list", async () => {
    const ids = (await list()).map((f) => f.id);
    const reversed = [...ids].reverse();
    const reader = await EventReader.register(org.api(holder), { event_types: ["custom_profile_fields"] });
    expect(await reorder(reversed)).toEqual({ result: "success", msg: "" });
    const after = await list();
    expect(after.map((f) => f.id)).toEqual(reversed);
    expect(after.map((f) => f.order)).toEqual(reversed.map((_, i) => i));
    const [event] = await reader.until((e) => e.length >= 1);
    expect(event).toEqual({ id: event!.id, type: "custom_profile_fields", fields: after });
  });

  it("every field must be listed ('Invalid order mapping.'); unknown ids are ignored", async () => {
    const before = await list();
    const ids = before.map((f) => f.id);
    await refused(reorder(ids.slice(1)), "Invalid order mapping.");
    await refused(reorder([]), "Invalid order mapping.");
    expect(await list()).toEqual(before);
    await reorder([999999, ...ids]);
    expect((await list()).map((f) => f.id)).toEqual(ids);
  });

  it("administrators only", async () => {
    const ids = (await list()).map((f) => f.id);
    for (const { role, user } of roles) {
      const call = reorder(ids, user);
      if (role <= Role.ADMINISTRATOR) expect(await call).toEqual({ result: "success", msg: "" });
      else await expectZulipError(call, notAdmin);
    }
  });
});
