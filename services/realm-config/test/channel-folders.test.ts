import { Role, LIMITS } from "@teamchat/shared";
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

const create = (params: Record<string, unknown>) => sys.api(sys.owner).post("/channel_folders/create", params);
const list = async (params: Record<string, unknown> = {}) => {
  const body = ok(await sys.api(sys.owner).get("/channel_folders", params));
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["channel_folders", "msg", "result"]);
  return body.channel_folders as Array<Record<string, unknown>>;
};
const expectError = async (params: Record<string, unknown>, msg: string) => {
  const res = await create(params);
  expect({ status: res.status, body: res.body }).toEqual({
    status: 400,
    body: { result: "error", code: "BAD_REQUEST", msg },
  });
};

describe("POST /channel_folders/create", () => {
  it("creates a folder with rendered description; GET lists it; everyone gets a channel_folder add event", async () => {
    const rec = await recordDomainEvents(sys.nc, "realm-config");
    const before = Math.floor(Date.now() / 1000);
    const body = ok(await create({ name: "Engineering", description: "All **engineering** channels" }));
    expect(Object.keys(body).sort()).toEqual(["channel_folder_id", "msg", "result"]);
    expect(body.channel_folder_id).toEqual(expect.any(Number));
    const folders = await list();
    expect(folders).toEqual([
      {
        id: body.channel_folder_id,
        name: "Engineering",
        description: "All **engineering** channels",
        rendered_description: "<p>All <strong>engineering</strong> channels</p>",
        order: body.channel_folder_id,
        date_created: expect.any(Number),
        creator_id: sys.owner.userId,
        is_archived: false,
      },
    ]);
    expect(folders[0]!.date_created).toBeGreaterThanOrEqual(before);
    expect(folders[0]!.date_created).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const [ev] = await rec.next();
    rec.stop();
    expect(ev).toEqual({
      realmId: sys.realm.id,
      userIds: "all",
      event: { type: "channel_folder", op: "add", channel_folder: folders[0] },
    });
  });

  it("an empty description is allowed and renders to an empty string; folders are listed by id", async () => {
    const { channel_folder_id } = ok(await create({ name: "Marketing", description: "" }));
    const folders = await list();
    expect(folders.map((f) => f.name)).toEqual(["Engineering", "Marketing"]);
    expect(folders[1]).toMatchObject({ id: channel_folder_id, description: "", rendered_description: "" });
  });

  it("the description must be sent; the name too", async () => {
    expect((await create({ name: "Sales" })).body).toEqual({
      result: "error",
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'description' argument",
      var_name: "description",
    });
    expect((await create({ description: "" })).body).toEqual({
      result: "error",
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'name' argument",
      var_name: "name",
    });
  });

  it("the name is non-empty after trimming, printable, and unique (case-insensitively)", async () => {
    await expectError({ name: "", description: "" }, "Channel folder name can't be empty.");
    await expectError({ name: "   ", description: "" }, "Channel folder name can't be empty.");
    await expectError(
      { name: "ab\u0007c", description: "" },
      "Invalid character in channel folder name, at position 3.",
    );
    await expectError({ name: "engineering", description: "x" }, "Channel folder name already in use");
    await expectError({ name: "Engineering", description: "x" }, "Channel folder name already in use");
  });

  it("enforces max_channel_folder_name_length and max_channel_folder_description_length in code points", async () => {
    const { max_channel_folder_name_length: nameMax, max_channel_folder_description_length: descMax } = LIMITS;
    await expectError(
      { name: "n".repeat(nameMax + 1), description: "" },
      `name is too long (limit: ${nameMax} characters)`,
    );
    await expectError(
      { name: "Long", description: "d".repeat(descMax + 1) },
      `description is too long (limit: ${descMax} characters)`,
    );
    // at the limits, with characters outside the BMP counted once each
    ok(await create({ name: "😀".repeat(nameMax), description: "d".repeat(descMax) }));
    expect((await list()).map((f) => f.name)).toContain("😀".repeat(nameMax));
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL", async () => {
    for (const { label, role, user } of roles) {
      const res = await sys.api(user).post("/channel_folders/create", { name: `By ${label}`, description: "" });
      if (role <= Role.ADMINISTRATOR)
        expect(res.body).toEqual({ result: "success", msg: "", channel_folder_id: expect.any(Number) });
      else
        expect({ status: res.status, body: res.body }).toEqual({
          status: 400,
          body: { result: "error", code: "UNAUTHORIZED_PRINCIPAL", msg: "Must be an organization administrator" },
        });
    }
    expect((await list()).map((f) => f.name).filter((n) => String(n).startsWith("By "))).toEqual([
      "By owner",
      "By administrator",
    ]);
  });
});

describe("GET /channel_folders", () => {
  it("is open to every role; include_archived is accepted", async () => {
    const expected = await list();
    expect(await list({ include_archived: true })).toEqual(expected);
    for (const { user } of roles) {
      expect(ok(await sys.api(user).get("/channel_folders")).channel_folders).toEqual(expected);
    }
  });

  it("rejects a non-boolean include_archived and anonymous requests", async () => {
    const res = await sys.api(sys.owner).get("/channel_folders", { include_archived: "yes" });
    expect(res.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "include_archived is not valid JSON" });
    expect((await sys.api(null).get("/channel_folders")).status).toBe(401);
  });
});
