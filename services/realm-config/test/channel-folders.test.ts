import { LIMITS, Role, realmConfig, type ParamsIn } from "@teamchat/shared";
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

type CreateParams = ParamsIn<typeof realmConfig.createChannelFolder>;

const create = (params: CreateParams, user: Credentials = org.owner) =>
  org.call(realmConfig.createChannelFolder, params, user);
const list = async (params: ParamsIn<typeof realmConfig.listChannelFolders> = {}, user: Credentials = org.owner) => {
  const body = await org.call(realmConfig.listChannelFolders, params, user);
  // newer than zulip.yaml, so the reply checker has no schema: the exact shape is asserted here
  expect(Object.keys(body).sort()).toEqual(["channel_folders", "msg", "result"]);
  return body.channel_folders;
};
const expectError = (params: CreateParams, msg: string) =>
  expectZulipError(create(params), { status: 400, code: "BAD_REQUEST", msg });

describe("POST /channel_folders/create", () => {
  it("creates a folder with rendered description; GET lists it; everyone gets a channel_folder add event", async () => {
    const rec = await recordDomainEvents(org, "realm-config");
    const before = Math.floor(Date.now() / 1000);
    const body = await create({ name: "Engineering", description: "All **engineering** channels" });
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
        creator_id: org.owner.userId,
        is_archived: false,
      },
    ]);
    expect(folders[0]!.date_created).toBeGreaterThanOrEqual(before);
    expect(folders[0]!.date_created).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const [ev] = await rec.next();
    rec.stop();
    expect(ev).toEqual({
      realmId: org.realm.id,
      userIds: "all",
      event: { type: "channel_folder", op: "add", channel_folder: folders[0] },
    });
  });

  it("an empty description is allowed and renders to an empty string; folders are listed by id", async () => {
    const { channel_folder_id } = await create({ name: "Marketing", description: "" });
    const folders = await list();
    expect(folders.map((f) => f.name)).toEqual(["Engineering", "Marketing"]);
    expect(folders[1]).toMatchObject({ id: channel_folder_id, description: "", rendered_description: "" });
  });

  it("the description must be sent; the name too", async () => {
    // raw requests: the contract's types require both
    const createRaw = (params: Record<string, unknown>) => org.api(org.owner).post("/channel_folders/create", params);
    await expectZulipError(createRaw({ name: "Sales" }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'description' argument",
      var_name: "description",
    });
    await expectZulipError(createRaw({ description: "" }), {
      status: 400,
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
    await create({ name: "😀".repeat(nameMax), description: "d".repeat(descMax) });
    expect((await list()).map((f) => f.name)).toContain("😀".repeat(nameMax));
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL", async () => {
    for (const { label, role, user } of roles) {
      const res = create({ name: `By ${label}`, description: "" }, user);
      if (role <= Role.ADMINISTRATOR)
        expect(await res).toEqual({ result: "success", msg: "", channel_folder_id: expect.any(Number) });
      else
        await expectZulipError(res, {
          status: 400,
          code: "UNAUTHORIZED_PRINCIPAL",
          msg: "Must be an organization administrator",
        });
    }
    expect((await list()).map((f) => f.name).filter((n) => n.startsWith("By "))).toEqual([
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
      expect(await list({}, user)).toEqual(expected);
    }
  });

  it("rejects a non-boolean include_archived and anonymous requests", async () => {
    // raw: the contract's types refuse a string include_archived
    await expectZulipError(org.api(org.owner).get("/channel_folders", { include_archived: "yes" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "include_archived is not valid JSON",
    });
    // HTTP authentication: no credentials, 401
    expect((await org.api(null).get("/channel_folders")).status).toBe(401);
  });
});
