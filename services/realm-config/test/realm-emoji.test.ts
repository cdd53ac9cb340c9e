/**
 * Custom emoji (Zulip's realm_emoji.py and lib/emoji.py): GET, POST and
 * DELETE /realm/emoji, the image at its source_url, register's realm_emoji
 * and realm_emoji events, and custom emoji as reactions and in statuses.
 */
import { MAX_EMOJI_FILE_SIZE_MIB, identity, messaging, notifications, realmConfig } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { download } from "../../../test/support/download";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let member: TestUser, other: TestUser, admin: TestUser, mod: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  member = await org.makeUser("Member", 400, "Member");
  other = await org.makeUser("Other", 400, "Other");
  admin = await org.makeUser("Admin", 200, "Admin");
  mod = await org.makeUser("Mod", 300, "Mod");
  guest = await org.makeUser("Guest", 600, "Guest");
});
afterAll(() => org?.stop());

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
const image = (type = "image/png", bytes: Buffer = PNG, name = "emoji.png") => new File([bytes], name, { type });
const addEmoji = (user: Credentials, name: string, files: Record<string, Blob> = { f: image() }) =>
  org.api(user).post(`/realm/emoji/${encodeURIComponent(name)}`, files, "multipart");
const list = async (user: Credentials = member) => (await org.call(realmConfig.listRealmEmoji, {}, user)).emoji;
const removeEmoji = (user: Credentials, name: string) =>
  org.call(realmConfig.removeRealmEmoji, { emoji_name: name }, user);
const expectRefused = async (res: Awaited<ReturnType<typeof addEmoji>>, msg: string) => {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: "error", code: "BAD_REQUEST", msg });
};

/** An emoji image, as browsers fetch it: anonymously. */
const get = (path: string) => download(org, null, path);

describe("POST /realm/emoji/{emoji_name}", () => {
  test("a member adds one: listed, in register, everyone hears realm_emoji, the image is served without auth", async () => {
    const events = await EventReader.register(org.api(other), { event_types: ["realm_emoji"] });
    const res = await addEmoji(member, "party parrot");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: "success", msg: "" });

    const emoji = await list();
    const [id] = Object.keys(emoji);
    const expected = {
      [id!]: {
        id,
        name: "party_parrot",
        source_url: `/user_avatars/${org.realm.id}/emoji/images/${id}.png`,
        still_url: null,
        deactivated: false,
        author_id: member.userId,
      },
    };
    expect(emoji).toEqual(expected);
    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toEqual({ id: expect.any(Number), type: "realm_emoji", op: "update", realm_emoji: expected });
    const state = (await org.call(notifications.registerQueue, { fetch_event_types: ["realm_emoji"] }, guest)) as {
      realm_emoji?: unknown;
    };
    expect(state.realm_emoji).toEqual(expected);

    const served = await get(expected[id!]!.source_url);
    expect(served.status).toBe(200);
    expect(served.headers["content-type"]).toBe("image/png");
    expect(served.body.equals(PNG)).toBe(true);
    expect((await get(`/user_avatars/${org.realm.id}/emoji/images/999999.png`)).status).toBe(404);
  });

  test("Zulip's name rules", async () => {
    await expectRefused(
      await addEmoji(member, "Capital"),
      "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.",
    );
    await expectRefused(await addEmoji(member, "ends_"), "Emoji names must end with either a letter or digit.");
    await expectRefused(
      await addEmoji(member, "dots.no"),
      "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.",
    );
    await expectRefused(await addEmoji(member, " "), "Emoji name is missing");
  });

  test("files: exactly one image within the size limit", async () => {
    await expectRefused(await addEmoji(member, "none", {}), "You must upload exactly one file.");
    await expectRefused(await addEmoji(member, "two", { a: image(), b: image() }), "You must upload exactly one file.");
    await expectRefused(
      await addEmoji(member, "huge", {
        f: image("image/png", Buffer.alloc(MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024 + 1)),
      }),
      `Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_SIZE_MIB} MiB`,
    );
    await expectRefused(
      await addEmoji(member, "svg", { f: image("image/svg+xml", Buffer.from("<svg/>"), "a.svg") }),
      "Invalid image format",
    );
    expect(Object.values(await list()).map((e) => e.name)).not.toEqual(
      expect.arrayContaining(["none", "two", "huge", "svg"]),
    );
  });

  test("permission: can_add_custom_emoji_group (members by default); built-in names for administrators; names unique", async () => {
    await expectRefused(await addEmoji(guest, "guest_emoji"), "Insufficient permission");
    await expectRefused(await addEmoji(member, "smile"), "Only administrators can override built-in emoji.");
    expect((await addEmoji(admin, "smile")).status).toBe(200);
    expect((await addEmoji(mod, "mod_emoji")).status).toBe(200);
    await expectRefused(await addEmoji(other, "mod_emoji"), "A custom emoji with this name already exists.");

    await org.call(realmConfig.updateRealm, { can_add_custom_emoji_group: { new: 2 } }, org.owner);
    try {
      await expectRefused(await addEmoji(member, "after_change"), "Insufficient permission");
      expect((await addEmoji(admin, "after_change")).status).toBe(200);
    } finally {
      await org.call(realmConfig.updateRealm, { can_add_custom_emoji_group: { new: 5 } }, org.owner);
    }
  });
});

describe("DELETE /realm/emoji/{emoji_name}", () => {
  test("the author or an administrator deactivates; others are refused; unknown names are 404", async () => {
    expect((await addEmoji(member, "to_remove")).status).toBe(200);
    expect((await addEmoji(member, "admin_removes")).status).toBe(200);
    await expectZulipError(
      removeEmoji(other, "to_remove"),
      badRequestError("Must be an organization administrator or emoji author"),
    );
    await expectZulipError(
      removeEmoji(mod, "to_remove"),
      badRequestError("Must be an organization administrator or emoji author"),
    );
    await expectZulipError(removeEmoji(member, "no_such"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Emoji 'no_such' does not exist",
    });

    const events = await EventReader.register(org.api(other), { event_types: ["realm_emoji"] });
    expect(await removeEmoji(member, "to_remove")).toEqual({ result: "success", msg: "" });
    await removeEmoji(admin, "admin_removes");
    const removed = Object.values(await list()).filter((e) => e.name === "to_remove" || e.name === "admin_removes");
    expect(removed.map((e) => e.deactivated)).toEqual([true, true]);
    const got = await events.until((e) => e.length >= 2);
    expect((got[1]!.realm_emoji as Record<string, { deactivated: boolean }>)[removed[1]!.id]!.deactivated).toBe(true);
    // deactivated: gone for removal, its name free again, its image still served
    await expectZulipError(removeEmoji(member, "to_remove"), {
      status: 404,
      code: "BAD_REQUEST",
      msg: "Emoji 'to_remove' does not exist",
    });
    expect((await get(removed[0]!.source_url)).status).toBe(200);
    expect((await addEmoji(member, "to_remove")).status).toBe(200);
  });
});

describe("custom emoji in reactions and statuses", () => {
  test("reacting by name or by id; deactivated or misnamed emoji are refused", async () => {
    expect((await addEmoji(member, "ship_it")).status).toBe(200);
    expect((await addEmoji(member, "old_one")).status).toBe(200);
    const emoji = Object.values(await list());
    const shipIt = emoji.find((e) => e.name === "ship_it" && !e.deactivated)!;
    const oldOne = emoji.find((e) => e.name === "old_one" && !e.deactivated)!;
    await removeEmoji(member, "old_one");
    const { id } = await org.call(
      messaging.sendMessage,
      { type: "private", to: [other.userId], content: "hi" },
      member,
    );

    await expectZulipError(
      org.call(
        messaging.addReaction,
        { message_id: id, emoji_name: "wrong", emoji_code: shipIt.id, reaction_type: "realm_emoji" },
        member,
      ),
      badRequestError("Invalid custom emoji name."),
    );
    await org.call(messaging.addReaction, { message_id: id, emoji_name: "ship_it" }, member);
    await org.call(
      messaging.addReaction,
      { message_id: id, emoji_name: "ship_it", emoji_code: shipIt.id, reaction_type: "realm_emoji" },
      other,
    );
    const { message } = await org.call(messaging.getMessage, { message_id: id }, member);
    expect((message as { reactions: unknown[] }).reactions).toEqual([
      { emoji_name: "ship_it", emoji_code: shipIt.id, reaction_type: "realm_emoji", user_id: member.userId },
      { emoji_name: "ship_it", emoji_code: shipIt.id, reaction_type: "realm_emoji", user_id: other.userId },
    ]);
    await expectZulipError(
      org.call(
        messaging.addReaction,
        { message_id: id, emoji_name: "old_one", emoji_code: oldOne.id, reaction_type: "realm_emoji" },
        member,
      ),
      badRequestError("This custom emoji has been deactivated."),
    );
    // a deactivated emoji's name no longer names it
    await expectZulipError(
      org.call(messaging.addReaction, { message_id: id, emoji_name: "old_one" }, member),
      badRequestError("Emoji 'old_one' does not exist"),
    );
    // by name, the type said: Zulip takes unicode_emoji otherwise
    await org.call(
      messaging.removeReaction,
      { message_id: id, emoji_name: "ship_it", reaction_type: "realm_emoji" },
      member,
    );
  });

  test("a status takes a custom emoji", async () => {
    expect((await addEmoji(member, "status_emoji")).status).toBe(200);
    const statusEmoji = Object.values(await list()).find((e) => e.name === "status_emoji")!;
    await org.call(identity.updateStatus, { status_text: "busy", emoji_name: "status_emoji" }, member);
    expect(await org.call(identity.getUserStatus, { user_id: member.userId }, other)).toEqual({
      result: "success",
      msg: "",
      status: {
        status_text: "busy",
        emoji_name: "status_emoji",
        emoji_code: statusEmoji.id,
        reaction_type: "realm_emoji",
      },
    });
  });
});
