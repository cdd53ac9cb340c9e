/**
 * Uploads (Zulip's upload.py and attachments.py): POST /user_uploads, the file
 * at /user_uploads/<path id> for those who may see it, GET /attachments,
 * DELETE /attachments/{id}, messages that link uploads (send and edit), and
 * the attachment events the uploader hears.
 */
import { MAX_FILE_UPLOAD_SIZE_MIB, messaging } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { download as downloadFile } from "../../../test/support/download";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser,
  bob: TestUser,
  carol: TestUser,
  guest: TestUser,
  admin: TestUser,
  mod: TestUser,
  guestInDesign: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  admin = await org.makeUser("Admin", 200, "Admin");
  mod = await org.makeUser("Mod", 300, "Mod");
  guestInDesign = await org.makeUser("Visitor", 600, "Visitor");
  await createChannel(org, alice, "design", [alice.userId, bob.userId, guestInDesign.userId]);
  await createChannel(org, alice, "secret", [alice.userId, bob.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const upload = (user: Credentials, files: Record<string, Blob>) =>
  org.api(user).post("/user_uploads", files, "multipart");
const uploadText = async (user: Credentials, name: string, text: string, type = "text/plain") => {
  const res = await upload(user, { file: new File([text], name, { type }) });
  expect(res.status).toBe(200);
  return res.body as { uri: string; url: string; filename: string };
};
const attachments = (user: Credentials) => org.call(messaging.listAttachments, {}, user);
const send = async (user: Credentials, to: string, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to, topic: "files", content }, user)).id;

const download = (user: Credentials | null, path: string) => downloadFile(org, user, path);

describe("POST /user_uploads", () => {
  test("stores the file under Zulip's path and answers uri, url and filename; the uploader hears attachment add", async () => {
    const events = await EventReader.register(org.api(carol), { event_types: ["attachment"] });
    const before = (await attachments(carol)).upload_space_used;
    const reply = await uploadText(carol, "Notes for Q3.txt", "hello world");
    expect(reply.url).toMatch(
      new RegExp(`^/user_uploads/${org.realm.id}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/Notes-for-Q3\\.txt$`),
    );
    expect(reply).toEqual({ result: "success", msg: "", uri: reply.url, url: reply.url, filename: "Notes for Q3.txt" });

    const list = await attachments(carol);
    const pathId = reply.url.slice("/user_uploads/".length);
    const attachment = list.attachments.find((a) => a.path_id === pathId)!;
    expect(attachment).toEqual({
      id: expect.any(Number),
      name: "Notes for Q3.txt",
      path_id: pathId,
      size: 11,
      create_time: expect.any(Number),
      messages: [],
    });
    expect(Math.abs(attachment.create_time - Date.now())).toBeLessThan(60_000);
    expect(list.upload_space_used).toBe(before + 11);

    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toEqual({
      id: expect.any(Number),
      type: "attachment",
      op: "add",
      attachment,
      upload_space_used: before + 11,
    });
  });

  test("the uploader downloads the bytes with the type it was uploaded with and Zulip's Content-Disposition", async () => {
    const bytes = Buffer.alloc(1_300_000, 7); // three chunks on the bus
    const png = await upload(alice, { file: new File([bytes], "big picture.png", { type: "image/png" }) });
    const res = await download(alice, png.body.url as string);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.headers["content-disposition"]).toBe('inline; filename="big-picture.png"');
    expect(res.body.equals(bytes)).toBe(true);

    const text = await uploadText(alice, "page.html", "<script>alert(1)</script>", "text/html");
    const html = await download(alice, text.url);
    expect(html.headers["content-disposition"]).toBe('attachment; filename="page.html"');
    expect(html.body.toString()).toBe("<script>alert(1)</script>");
  });

  test("names with nothing URL-safe become uploaded-file; the reply keeps the name given", async () => {
    const reply = await uploadText(alice, "日本.", "x");
    expect(reply.url).toMatch(/\/uploaded-file$/);
    expect(reply.filename).toBe("日本.");
  });

  test("no file, two files, or a file over the limit are refused and store nothing", async () => {
    const before = await attachments(alice);
    const none = await upload(alice, {});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "You must specify a file to upload" });
    const two = await upload(alice, { a: new File(["1"], "a.txt"), b: new File(["2"], "b.txt") });
    expect(two.status).toBe(400);
    expect(two.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "You may only upload one file at a time" });
    // the gateway reads two files at most
    const three = await upload(alice, {
      a: new File(["1"], "a.txt"),
      b: new File(["2"], "b.txt"),
      c: new File(["3"], "c.txt"),
    });
    expect([three.status, three.body]).toEqual([
      413,
      { result: "error", code: "BAD_REQUEST", msg: "reach files limit" },
    ]);
    const big = await upload(alice, {
      file: new File([Buffer.alloc(MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024 + 1)], "big.bin"),
    });
    expect(big.status).toBe(400);
    expect(big.body).toEqual({
      result: "error",
      code: "BAD_REQUEST",
      msg: `File is larger than this server's configured maximum upload size (${MAX_FILE_UPLOAD_SIZE_MIB} MiB).`,
    });
    expect(await attachments(alice)).toEqual(before);
  });

  test("a client's own `files` field cannot name stored files", async () => {
    const res = await org
      .api(alice)
      .post("/user_uploads", { files: JSON.stringify([{ file_id: "x", filename: "x", content_type: "x", size: 1 }]) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe("You must specify a file to upload");
  });
});

describe("who may download (Zulip's validate_attachment_request)", () => {
  test("others only once a message they may see links it; 404 for no such file, 403 otherwise", async () => {
    const { url } = await uploadText(alice, "plan.txt", "the plan");
    expect((await download(bob, url)).status).toBe(403);
    expect((await download(bob, url)).body.toString()).toBe("<p>You are not authorized to view this file.</p>");
    expect((await download(null, url)).status).toBe(403);

    await send(alice, "secret", `[plan.txt](${url})`);
    expect((await download(bob, url)).status).toBe(200);
    // not subscribed to the private channel: still refused, whatever the role (Zulip gives administrators no files)
    for (const user of [carol, guest, mod, admin, org.owner]) expect((await download(user, url)).status).toBe(403);

    const missing = await download(bob, `/user_uploads/${org.realm.id}/ab/nothing/here.txt`);
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toBe("<p>File not found.</p>");
  });

  test("a message in a public channel lets members who did not receive it download (channel history)", async () => {
    const { url } = await uploadText(alice, "public.txt", "for all");
    await send(alice, "design", `see ${org.baseUrl}${url}`);
    expect((await download(carol, url)).body.toString()).toBe("for all");
    expect((await download(admin, url)).status).toBe(200);
    // a guest sees what they received, not the history of channels they are not in
    expect((await download(guestInDesign, url)).status).toBe(200);
    expect((await download(guest, url)).status).toBe(403);
  });

  test("bad credentials are 401, as for the API", async () => {
    const { url } = await uploadText(alice, "x.txt", "x");
    expect((await download({ email: alice.email, apiKey: "wrong" }, url)).status).toBe(401);
  });
});

describe("GET /api/v1/user_uploads/{realm_id_str}/{filename}: a temporary URL", () => {
  test("for those who may see the file, a URL that serves it without credentials, for that name only", async () => {
    const { url } = await uploadText(alice, "temp.txt", "short-lived");
    const reply = await org.api(alice).get(url);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: "success",
      msg: "",
      url: expect.stringMatching(/^\/user_uploads\/temporary\/[\w-]+\/temp\.txt$/),
    });
    const temporary = reply.body.url as string;
    const served = await download(null, temporary);
    expect(served.status).toBe(200);
    expect(served.body.toString()).toBe("short-lived");
    expect(served.headers["content-disposition"]).toBe('attachment; filename="temp.txt"');

    const wrongName = await download(null, temporary.replace(/temp\.txt$/, "other.txt"));
    expect([wrongName.status, JSON.parse(wrongName.body.toString())]).toEqual([
      400,
      { result: "error", code: "BAD_REQUEST", msg: "Invalid filename" },
    ]);
    const badToken = await download(null, "/user_uploads/temporary/nothing/temp.txt");
    expect([badToken.status, JSON.parse(badToken.body.toString())]).toEqual([
      400,
      { result: "error", code: "BAD_REQUEST", msg: "Invalid token" },
    ]);
    const refused = await org.api(bob).get(url);
    expect([refused.status, refused.body]).toEqual([
      403,
      { result: "error", code: "BAD_REQUEST", msg: "You are not authorized to view this file." },
    ]);
    const missing = await org.api(alice).get(`/user_uploads/${org.realm.id}/ab/cd/none.txt`);
    expect([missing.status, missing.body]).toEqual([
      404,
      { result: "error", code: "BAD_REQUEST", msg: "File not found." },
    ]);
  });
});

describe("messages that link uploads", () => {
  test("sending claims the sender's uploads: attachment update with the message; others' unseen files are not claimed", async () => {
    const mine = await uploadText(alice, "mine.txt", "a");
    const bobs = await uploadText(bob, "bobs.txt", "b");
    const events = await EventReader.register(org.api(alice), { event_types: ["attachment"] });
    const bobEvents = await EventReader.register(org.api(bob), { event_types: ["attachment"] });
    const id = await send(alice, "design", `[mine](${mine.url}) and [bobs](${bobs.url})`);
    const { timestamp } = (await org.call(messaging.getMessage, { message_id: id }, alice)).message as {
      timestamp: number;
    };

    const listed = (await attachments(alice)).attachments.find((a) => a.name === "mine.txt")!;
    expect(listed.messages).toEqual([{ id, date_sent: timestamp * 1000 }]);
    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toMatchObject({ type: "attachment", op: "update", attachment: listed });
    // bob's file was not visible to alice: not linked, bob hears nothing
    expect((await attachments(bob)).attachments.find((a) => a.name === "bobs.txt")!.messages).toEqual([]);
    expect(await bobEvents.drain()).toEqual([]);
    expect((await download(carol, bobs.url)).status).toBe(403);
  });

  test("an edit claims newly linked uploads and unlinks removed ones", async () => {
    const first = await uploadText(alice, "first.txt", "1");
    const second = await uploadText(alice, "second.txt", "2");
    const id = await send(alice, "design", `[1](${first.url})`);
    await org.call(messaging.updateMessage, { message_id: id, content: `[2](${second.url})` }, alice);
    const list = (await attachments(alice)).attachments;
    expect(list.find((a) => a.name === "first.txt")!.messages).toEqual([]);
    expect(list.find((a) => a.name === "second.txt")!.messages.map((m) => m.id)).toEqual([id]);
  });

  test("deleting the message unlinks it", async () => {
    const file = await uploadText(alice, "gone.txt", "g");
    const id = await send(alice, "design", `[g](${file.url})`);
    await org.call(messaging.deleteMessage, { message_id: id }, org.owner);
    expect((await attachments(alice)).attachments.find((a) => a.name === "gone.txt")!.messages).toEqual([]);
  });
});

describe("DELETE /attachments/{attachment_id}", () => {
  test("the uploader deletes: remove event, the file is gone; others and unknown ids get Invalid attachment", async () => {
    const { url } = await uploadText(alice, "delete-me.txt", "bye");
    const { id } = (await attachments(alice)).attachments.find((a) => a.name === "delete-me.txt")!;
    for (const user of [bob, admin, org.owner]) {
      await expectZulipError(
        org.call(messaging.removeAttachment, { attachment_id: id }, user),
        badRequestError("Invalid attachment"),
      );
    }
    await expectZulipError(
      org.call(messaging.removeAttachment, { attachment_id: id + 100_000 }, alice),
      badRequestError("Invalid attachment"),
    );
    expect((await download(alice, url)).status).toBe(200);

    const events = await EventReader.register(org.api(alice), { event_types: ["attachment"] });
    const before = (await attachments(alice)).upload_space_used;
    expect(await org.call(messaging.removeAttachment, { attachment_id: id }, alice)).toEqual({
      result: "success",
      msg: "",
    });
    expect((await attachments(alice)).attachments.some((a) => a.id === id)).toBe(false);
    expect((await download(alice, url)).status).toBe(404);
    const [event] = await events.until((e) => e.length >= 1);
    expect(event).toEqual({
      id: expect.any(Number),
      type: "attachment",
      op: "remove",
      attachment: { id },
      upload_space_used: before - 3,
    });
  });
});
