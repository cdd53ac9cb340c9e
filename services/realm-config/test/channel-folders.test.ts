import { LIMITS, Role, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { ok } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { recordDomainEvents, type DomainEvent } from "../../../test/support/domain-events";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
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

type ChannelFolder = realmConfig.ChannelFolder;
type UpdateParams = Omit<ParamsIn<typeof realmConfig.updateChannelFolder>, "channel_folder_id">;

const update = (id: number, params: UpdateParams, user: Credentials = org.owner) =>
  org.call(realmConfig.updateChannelFolder, { channel_folder_id: id, ...params }, user);
const reorder = (order: number[], user: Credentials = org.owner) =>
  org.call(realmConfig.reorderChannelFolders, { order }, user);
const allFolders = () => list({ include_archived: true });
const folderById = async (id: number) => (await allFolders()).find((f) => f.id === id)!;
const SUCCESS = { result: "success", msg: "" };
const UNAUTHORIZED = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");

let markers = 0;
/**
 * The channel_folder events realm-config published since `rec` started, up to a marker: a
 * folder created afterwards (realm-config publishes in order, so once it arrives every
 * earlier event has). Returns the client events.
 */
async function eventsBeforeMarker(rec: Awaited<ReturnType<typeof recordDomainEvents>>) {
  const name = `Marker ${++markers}`;
  await create({ name, description: "" });
  const isMarker = (e: DomainEvent) =>
    (e.event as { channel_folder?: ChannelFolder } | undefined)?.channel_folder?.name === name;
  return (await rec.before(isMarker)).map((e) => {
    expect(e.userIds).toBe("all");
    return e.event;
  });
}

/** Zulip's apply_event for channel_folder events (zerver/lib/events.py), on a register state. */
function applyChannelFolderEvent(state: ChannelFolder[], event: ZulipEvent): ChannelFolder[] {
  if (event.op === "add") return [...state, event.channel_folder as ChannelFolder];
  if (event.op === "update")
    return state.map((f) => (f.id === event.channel_folder_id ? { ...f, ...(event.data as object) } : f));
  const position = new Map((event.order as number[]).map((id, index) => [id, index]));
  return state.map((f) => ({ ...f, order: position.get(f.id)! }));
}

const withoutMarkers = (folders: ChannelFolder[]) => folders.filter((f) => !f.name.startsWith("Marker "));

const registerChannelFolders = async (user: Credentials) =>
  ok(await org.api(user).post("/register", { fetch_event_types: ["channel_folders"], event_types: [] }))
    .channel_folders as ChannelFolder[];
const byId = (folders: ChannelFolder[]) => [...folders].sort((a, b) => a.id - b.id);

describe("PATCH /channel_folders/{channel_folder_id}", () => {
  it("changes name, description (re-rendered) and is_archived; one channel_folder update event per field, to every role", async () => {
    const { channel_folder_id: id } = await create({ name: "Design", description: "old" });
    const queues = await Promise.all(
      roles.map(({ user }) => EventReader.register(org.api(user), { event_types: ["channel_folder"] })),
    );
    const before = await folderById(id);

    expect(await update(id, { name: "UX design", description: "All **UX** channels", is_archived: true })).toEqual(
      SUCCESS,
    );
    const after = { ...before, name: "UX design", description: "All **UX** channels", is_archived: true };
    after.rendered_description = "<p>All <strong>UX</strong> channels</p>";
    expect(await folderById(id)).toEqual(after);
    expect((await list()).map((f) => f.id)).not.toContain(id);

    const expected = [
      { type: "channel_folder", op: "update", channel_folder_id: id, data: { name: "UX design" } },
      {
        type: "channel_folder",
        op: "update",
        channel_folder_id: id,
        data: { description: "All **UX** channels", rendered_description: "<p>All <strong>UX</strong> channels</p>" },
      },
      { type: "channel_folder", op: "update", channel_folder_id: id, data: { is_archived: true } },
    ];
    for (const queue of queues) {
      const events = await queue.until((es) => es.length === 3);
      expect(events).toEqual(expected.map((e) => ({ ...e, id: expect.any(Number) })));
    }

    expect(await update(id, { is_archived: false, description: "" })).toEqual(SUCCESS);
    expect(await folderById(id)).toEqual({ ...after, description: "", rendered_description: "", is_archived: false });
    const [queue] = queues;
    expect((await queue!.until((es) => es.length === 5)).slice(3)).toEqual([
      { id: expect.any(Number), ...expected[1], data: { description: "", rendered_description: "" } },
      { id: expect.any(Number), ...expected[2], data: { is_archived: false } },
    ]);
  });

  it("fields equal to the folder's, or none at all: success, nothing written, no event", async () => {
    const { channel_folder_id: id } = await create({ name: "Same", description: "same" });
    const before = await folderById(id);
    const rec = await recordDomainEvents(org, "realm-config");
    expect(await update(id, { name: "Same", description: "same", is_archived: false })).toEqual(SUCCESS);
    expect(await update(id, {})).toEqual(SUCCESS);
    expect(await eventsBeforeMarker(rec)).toEqual([]);
    rec.stop();
    expect(await folderById(id)).toEqual(before);
  });

  it("refuses each bad change with Zulip's error, changing nothing and sending no event", async () => {
    const { channel_folder_id: id } = await create({ name: "Sales", description: "" });
    await create({ name: "Support", description: "" });
    const before = await allFolders();
    const rec = await recordDomainEvents(org, "realm-config");
    const { max_channel_folder_name_length: nameMax, max_channel_folder_description_length: descMax } = LIMITS;
    const refusals: Array<[UpdateParams & { channel_folder_id?: number }, string]> = [
      [{ channel_folder_id: 999_999_999, name: "Anything" }, "Invalid channel folder ID"],
      [{ name: "" }, "Channel folder name can't be empty."],
      [{ name: "  " }, "Channel folder name can't be empty."],
      [{ name: "a\u0000b" }, "Invalid character in channel folder name, at position 2."],
      [{ name: "support" }, "Channel folder name already in use"],
      // Zulip compares with every active folder, this one included
      [{ name: "SALES" }, "Channel folder name already in use"],
      [{ name: "n".repeat(nameMax + 1) }, `name is too long (limit: ${nameMax} characters)`],
      [{ description: "d".repeat(descMax + 1) }, `description is too long (limit: ${descMax} characters)`],
      // a valid change with a refused one: neither is made
      [{ description: "new", name: "" }, "Channel folder name can't be empty."],
      [{ is_archived: true, name: "Support" }, "Channel folder name already in use"],
    ];
    for (const [{ channel_folder_id = id, ...params }, msg] of refusals) {
      await expectZulipError(update(channel_folder_id, params), badRequestError(msg));
    }
    await expectZulipError(
      org.api(org.owner).patch(`/channel_folders/${id}`, { is_archived: "yes" }),
      badRequestError("is_archived is not valid JSON"),
    );
    expect(await eventsBeforeMarker(rec)).toEqual([]);
    rec.stop();
    expect(withoutMarkers(await allFolders())).toEqual(withoutMarkers(before));
  });

  it("archived folders leave their name free: a new folder may take it, and the archived one cannot come back or be renamed to it", async () => {
    const { channel_folder_id: archived } = await create({ name: "Legacy", description: "" });
    await update(archived, { is_archived: true });
    const { channel_folder_id: active } = await create({ name: "legacy", description: "" });
    await expectZulipError(
      update(archived, { is_archived: false }),
      badRequestError("Channel folder name already in use"),
    );
    await expectZulipError(update(active, { name: "LEGACY" }), badRequestError("Channel folder name already in use"));
    await expectZulipError(
      update(archived, { name: "Support" }),
      badRequestError("Channel folder name already in use"),
    );
    expect(await folderById(archived)).toMatchObject({ name: "Legacy", is_archived: true });
    // renamed while archived, it can come back
    expect(await update(archived, { name: "Legacy (old)" })).toEqual(SUCCESS);
    expect(await update(archived, { is_archived: false })).toEqual(SUCCESS);
    expect(await folderById(archived)).toMatchObject({ name: "Legacy (old)", is_archived: false });
    expect(await folderById(active)).toMatchObject({ name: "legacy", is_archived: false });
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL, before the folder is looked up, and change nothing", async () => {
    const { channel_folder_id: id } = await create({ name: "Permissions", description: "" });
    for (const { label, role, user } of roles) {
      const res = update(id, { description: `by ${label}` }, user);
      if (role <= Role.ADMINISTRATOR) expect(await res).toEqual(SUCCESS);
      else {
        await expectZulipError(res, UNAUTHORIZED);
        await expectZulipError(update(999_999_999, { name: "x" }, user), UNAUTHORIZED);
      }
    }
    expect((await folderById(id)).description).toBe("by administrator");
    expect((await org.api(null).patch(`/channel_folders/${id}`, { name: "x" })).status).toBe(401);
  });
});

describe("PATCH /channel_folders (reorder)", () => {
  beforeAll(async () => {
    const { channel_folder_id } = await create({ name: "Archived", description: "" });
    await update(channel_folder_id, { is_archived: true });
  });

  it("sets each folder's order to its position, archived ones included; GET lists by order; a reorder event for every role", async () => {
    const folders = await allFolders();
    expect(folders.some((f) => f.is_archived)).toBe(true);
    const order = folders.map((f) => f.id).reverse();
    const queues = await Promise.all(
      roles.map(({ user }) => EventReader.register(org.api(user), { event_types: ["channel_folder"] })),
    );
    expect(await reorder(order)).toEqual(SUCCESS);
    const reordered = await allFolders();
    expect(reordered).toEqual(order.map((id, index) => ({ ...folders.find((f) => f.id === id), order: index })));
    expect(await list()).toEqual(reordered.filter((f) => !f.is_archived));
    for (const queue of queues) {
      expect(await queue.until((es) => es.length === 1)).toEqual([
        { id: expect.any(Number), type: "channel_folder", op: "reorder", order },
      ]);
    }
    // a new folder goes last: its order is its id, as Zulip sets it
    const { channel_folder_id } = await create({ name: "Newest", description: "" });
    const after = await allFolders();
    expect(after.at(-1)).toMatchObject({ id: channel_folder_id, order: channel_folder_id });
  });

  it("as Zulip: a repeated id takes its last position; ids of no folder are ignored but stay in the event", async () => {
    const ids = (await allFolders()).map((f) => f.id);
    const [first, ...rest] = ids;
    const order = [first!, ...rest, 999_999_999, first!];
    const rec = await recordDomainEvents(org, "realm-config");
    expect(await reorder(order)).toEqual(SUCCESS);
    const [event] = await rec.next();
    rec.stop();
    expect(event!.event).toEqual({ type: "channel_folder", op: "reorder", order });
    const folders = await allFolders();
    expect(folders.map((f) => f.id)).toEqual([...rest, first]);
    expect(folders.map((f) => f.order)).toEqual([...rest.map((_, i) => i + 1), order.length - 1]);
  });

  it("every folder must be listed: Invalid order mapping., nothing changed, no event", async () => {
    const before = await allFolders();
    const ids = before.map((f) => f.id);
    const archived = before.find((f) => f.is_archived)!.id;
    const rec = await recordDomainEvents(org, "realm-config");
    for (const order of [[], ids.slice(1), ids.filter((id) => id !== archived), [999_999_999]]) {
      await expectZulipError(reorder(order), badRequestError("Invalid order mapping."));
    }
    const raw = (params: Record<string, unknown>) => org.api(org.owner).patch("/channel_folders", params);
    await expectZulipError(raw({}), {
      ...badRequestError("Missing 'order' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "order",
    });
    await expectZulipError(raw({ order: "1,2" }), badRequestError("order is not valid JSON"));
    expect(await eventsBeforeMarker(rec)).toEqual([]);
    rec.stop();
    expect(withoutMarkers(await allFolders())).toEqual(withoutMarkers(before));
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL and change nothing", async () => {
    for (const { role, user } of roles) {
      const before = await allFolders();
      const order = before.map((f) => f.id).reverse();
      const res = reorder(order, user);
      if (role <= Role.ADMINISTRATOR) {
        expect(await res).toEqual(SUCCESS);
        expect((await allFolders()).map((f) => f.id)).toEqual(order);
      } else {
        await expectZulipError(res, UNAUTHORIZED);
        expect(await allFolders()).toEqual(before);
      }
    }
  });
});

describe("register's channel_folders", () => {
  it("every folder, archived ones too, as GET lists them; kept current by the channel_folder events", async () => {
    const member = roles.find((r) => r.label === "member")!.user;
    const initial = await registerChannelFolders(member);
    expect(initial).toEqual(await allFolders());
    const queue = await EventReader.register(org.api(member), { event_types: ["channel_folder"] });

    const { channel_folder_id: id } = await create({ name: "Register", description: "x" });
    await update(id, { name: "Registered", description: "*y*", is_archived: true });
    const ids = (await allFolders()).map((f) => f.id);
    await reorder([...ids.slice(1), ids[0]!]);

    const events = await queue.until((es) => es.length === 5);
    const applied = events.reduce(applyChannelFolderEvent, initial);
    const fresh = await registerChannelFolders(member);
    expect(fresh).toEqual(await allFolders());
    // Zulip's apply_event keeps adds in id order; clients sort by `order`
    expect(byId(applied)).toEqual(byId(fresh));
  });
});
