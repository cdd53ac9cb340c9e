/**
 * Avatars (Zulip's zerver/views/user_settings.py set_avatar_backend and
 * delete_avatar_backend, zerver/views/users.py avatar, zerver/lib/avatar.py,
 * zerver/lib/upload/; its test_upload.py avatar tests): uploaded avatars
 * resized to Zulip's squares and served from /user_avatars/, the redirects of
 * /avatar/{email_or_id}, and the organization's avatar_changes_disabled.
 */
import { createHash } from "node:crypto";
import sharp from "sharp";
import { identity, messaging, realmConfig } from "@teamchat/shared";
import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { expectZulipError, badRequestError } from "../../../test/support/call";
import { download } from "../../../test/support/download";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("alice");
  bob = await org.makeUser("bob");
  admin = await org.makeUser("admin", 200);
});
afterAll(() => org?.stop());

/** A `width`×`height` PNG of one colour, as a client would upload a photo. */
const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#3366cc" } })
    .png()
    .toBuffer();
const upload = (user: Credentials, files: Record<string, Blob>) =>
  org.api(user).post("/users/me/avatar", files, "multipart");
const uploadImage = async (user: Credentials, bytes?: Buffer) =>
  ok(await upload(user, { file: new File([bytes ?? (await png(300, 200))], "me.png", { type: "image/png" }) }))
    .avatar_url as string;
const gravatar = (email: string, version: number, medium = false) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email.toLowerCase()).digest("hex")}?d=identicon${
    medium ? "&s=500" : ""
  }&version=${version}`;
const ownAvatar = async (user: Credentials) => {
  const reg = ok(await org.api(user).post("/register", { fetch_event_types: ["realm_user"] }));
  return { source: reg.avatar_source, url: reg.avatar_url, medium: reg.avatar_url_medium };
};
const dimensions = async (bytes: Buffer) => {
  const { width, height, format } = await sharp(bytes).metadata();
  return { width, height, format };
};

describe("POST /users/me/avatar", () => {
  it("keeps the image as Zulip's 100 and 500 px squares, served to anyone, and tells everyone of it", async () => {
    const events = await EventReader.register(org.api(bob), { event_types: ["realm_user"] });
    const url = await uploadImage(alice);
    expect(url).toMatch(new RegExp(`^/user_avatars/${org.realm.id}/[0-9a-f]+\\.png\\?version=2$`));
    const medium = url.replace(".png?", "-medium.png?");
    expect(await ownAvatar(alice)).toEqual({ source: "U", url, medium });
    expect((await org.call(identity.getOwnUser, {}, alice)).avatar_url).toBe(url);
    // client_gravatar leaves out only Gravatar URLs
    const { user } = await org.call(identity.getUser, { user_id: alice.userId, client_gravatar: true }, bob);
    expect(user.avatar_url).toBe(url);

    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toMatchObject({
      type: "realm_user",
      op: "update",
      person: {
        user_id: alice.userId,
        avatar_source: "U",
        avatar_url: url,
        avatar_url_medium: medium,
        avatar_version: 2,
      },
    });

    const small = await download(org, null, url);
    expect(small.status).toBe(200);
    expect(small.headers["content-type"]).toBe("image/png");
    expect(await dimensions(small.body)).toEqual({ width: 100, height: 100, format: "png" });
    expect(await dimensions((await download(org, null, medium)).body)).toEqual({
      width: 500,
      height: 500,
      format: "png",
    });
    // the original, as uploaded
    const original = await download(org, null, url.replace(/\.png\?.*$/, ".original"));
    expect(await dimensions(original.body)).toEqual({ width: 300, height: 200, format: "png" });

    // messages show the sender's new avatar
    const { id } = await org.call(messaging.sendMessage, { type: "private", to: [bob.userId], content: "hi" }, alice);
    const { message } = await org.call(messaging.getMessage, { message_id: id }, bob);
    expect(message.avatar_url).toBe(url);
  });

  it("replaces the previous avatar, whose images are gone", async () => {
    const first = await uploadImage(bob);
    const second = await uploadImage(bob, await png(40, 900));
    expect(Number(/version=(\d+)/.exec(second)![1])).toBe(Number(/version=(\d+)/.exec(first)![1]) + 1);
    expect((await download(org, null, first)).status).toBe(404);
    expect(await dimensions((await download(org, null, second)).body)).toEqual({
      width: 100,
      height: 100,
      format: "png",
    });
  });

  it("refuses what Zulip refuses, with its messages", async () => {
    const image = new File([await png(10, 10)], "a.png", { type: "image/png" });
    const one = badRequestError("You must upload exactly one avatar.");
    await expectZulipError(upload(bob, {}), one);
    await expectZulipError(upload(bob, { a: image, b: image }), one);
    await expectZulipError(
      upload(bob, { file: new File(["plain words"], "notes.txt", { type: "text/plain" }) }),
      badRequestError("Invalid image format", "BAD_IMAGE"),
    );
    await expectZulipError(
      upload(bob, { file: new File(["not an image"], "fake.png", { type: "image/png" }) }),
      badRequestError("Could not decode image; did you upload an image file?", "BAD_IMAGE"),
    );
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>';
    await expectZulipError(
      upload(bob, { file: new File([svg], "vector.png", { type: "image/png" }) }),
      badRequestError("Could not decode image; did you upload an image file?", "BAD_IMAGE"),
    );
    await expectZulipError(
      upload(bob, { file: new File([Buffer.alloc(5 * 1024 * 1024 + 1)], "big.png", { type: "image/png" }) }),
      badRequestError("Uploaded file is larger than the allowed limit of 5 MiB"),
    );
  });

  it("a bot's own upload also reaches those who administer it as a realm_bot update", async () => {
    const bot = await org.call(identity.createBot, { full_name: "Avatar Bot", short_name: "avatar" }, alice);
    const events = await EventReader.register(org.api(alice), { event_types: ["realm_bot"] });
    const email = `avatar-bot@${org.realm.host.split(":")[0]!}`;
    const url = await uploadImage({ email, apiKey: bot.api_key });
    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toMatchObject({ type: "realm_bot", op: "update", bot: { user_id: bot.user_id, avatar_url: url } });
  });
});

describe("DELETE /users/me/avatar", () => {
  it("goes back to Gravatar, a new version, and the uploaded images are gone", async () => {
    const uploaded = await uploadImage(alice);
    const events = await EventReader.register(org.api(bob), { event_types: ["realm_user"] });
    const version = Number(/version=(\d+)/.exec(uploaded)![1]) + 1;
    const { avatar_url } = await org.call(identity.deleteAvatar, {}, alice);
    expect(avatar_url).toBe(gravatar(alice.email, version));
    expect(await ownAvatar(alice)).toEqual({
      source: "G",
      url: gravatar(alice.email, version),
      medium: gravatar(alice.email, version, true),
    });
    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toMatchObject({ person: { user_id: alice.userId, avatar_source: "G", avatar_version: version } });
    expect((await download(org, null, uploaded)).status).toBe(404);
  });
});

describe("GET /avatar/{email_or_id}", () => {
  it("redirects to the avatar by id or address, medium on /medium, the query string kept", async () => {
    const url = await uploadImage(bob);
    const medium = url.replace(".png?", "-medium.png?");
    const redirect = async (path: string, user: Credentials | null = alice) => {
      const res = await download(org, user, path);
      return { status: res.status, location: res.headers.location };
    };
    expect(await redirect(`/avatar/${bob.userId}`)).toEqual({ status: 302, location: url });
    expect(await redirect(`/avatar/${bob.userId}/medium`)).toEqual({ status: 302, location: medium });
    expect(await redirect(`/avatar/${encodeURIComponent(bob.email)}?s=50`)).toEqual({
      status: 302,
      location: `${url}&s=50`,
    });
    // someone unknown is a new Gravatar of what was asked for
    expect(await redirect("/avatar/nobody@example.com/medium")).toEqual({
      status: 302,
      location: gravatar("nobody@example.com", 1, true),
    });
    expect(await redirect("/avatar/999999999")).toEqual({ status: 302, location: gravatar("999999999", 1) });
    // this server has no spectators: credentials are required
    expect((await redirect(`/avatar/${bob.userId}`, null)).status).toBe(401);
  });
});

describe("avatar_changes_disabled", () => {
  it("binds everyone but administrators, for uploads and deletions", async () => {
    await org.call(realmConfig.updateRealm, { avatar_changes_disabled: true }, org.owner);
    try {
      const disabled = badRequestError("Avatar changes are disabled in this organization.");
      await expectZulipError(
        upload(bob, { file: new File([await png(10, 10)], "a.png", { type: "image/png" }) }),
        disabled,
      );
      await expectZulipError(org.call(identity.deleteAvatar, {}, bob), disabled);
      await uploadImage(admin);
      await org.call(identity.deleteAvatar, {}, admin);
    } finally {
      await org.call(realmConfig.updateRealm, { avatar_changes_disabled: false }, org.owner);
    }
  });
});
