/**
 * Zulip's Python bindings, unmodified, on uploads, custom emoji and avatars:
 * upload_file, get_attachments, upload_custom_emoji, get_realm_emoji, and a
 * message linking the upload, fetched and its file downloaded with the
 * bindings' own session; an avatar uploaded through call_endpoint and
 * fetched through /avatar/{user_id} (see python-bindings.test.ts for how the bindings run).
 */
import sharp from "sharp";
import { ok } from "@teamchat/shared/src/testing/api";
import type { TestUser } from "../support/organization";
import { installBindings, runBindings as runAt, type BindingsPlan, type Json } from "../support/python-bindings";
import { startSystem, type TestSystem } from "../support/system";

let sys: TestSystem;
let owner: TestUser, alice: TestUser, bob: TestUser;

beforeAll(async () => {
  installBindings();
  sys = await startSystem();
  owner = sys.owner;
  alice = await sys.makeUser("alice", 400, "Alice");
  bob = await sys.makeUser("bob", 400, "Bob");
  ok(await sys.api(owner).post("/channels/create", { name: "lobby", subscribers: [alice.userId, bob.userId] }));
}, 180_000);
afterAll(() => sys?.stop());

const runBindings = (user: TestUser, plan: BindingsPlan) => runAt(sys.baseUrl, user, plan);
const file = (name: string, bytes: Buffer) => ({ file: { name, base64: bytes.toString("base64") } });
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

it("upload_file, a message linking it, get_attachments, and the file downloaded by a recipient", async () => {
  const { replies, events } = await runBindings(alice, {
    calls: [["upload_file", file("report.txt", Buffer.from("quarterly numbers"))]],
    event_types: ["attachment"],
    expected_events: 1,
  });
  const [uploaded] = replies as Array<{ url: string; uri: string; filename: string }>;
  expect(uploaded).toEqual({
    result: "success",
    msg: "",
    uri: uploaded!.url,
    url: uploaded!.url,
    filename: "report.txt",
  });
  expect(uploaded!.url).toMatch(/^\/user_uploads\/\d+\/[0-9a-f]+\/[\w-]{24}\/report\.txt$/);
  expect(events).toEqual([
    {
      type: "attachment",
      op: "add",
      attachment: expect.objectContaining({ name: "report.txt", size: 17 }),
      upload_space_used: 17,
    },
  ]);

  const content = `[report.txt](${uploaded!.url})`;
  const { replies: sent } = await runBindings(alice, {
    calls: [["send_message", { type: "stream", to: "lobby", topic: "numbers", content }], ["get_attachments"]],
  });
  const messageId = sent[0]!.id as number;
  expect(sent[1]).toEqual({
    result: "success",
    msg: "",
    attachments: [
      {
        id: expect.any(Number),
        name: "report.txt",
        path_id: uploaded!.url.slice("/user_uploads/".length),
        size: 17,
        create_time: expect.any(Number),
        messages: [{ id: messageId, date_sent: expect.any(Number) }],
      },
    ],
    upload_space_used: 17,
  });

  const { replies: read } = await runBindings(bob, {
    calls: [
      ["get_raw_message", messageId],
      ["download", uploaded!.url],
    ],
  });
  expect((read[0]!.message as Json).content).toBe(`<p><a href="${uploaded!.url}">report.txt</a></p>`);
  expect(read[1]).toEqual({
    status: 200,
    content_type: "text/plain",
    base64: Buffer.from("quarterly numbers").toString("base64"),
  });
}, 60_000);

it("upload_custom_emoji and get_realm_emoji; the image at source_url", async () => {
  const { replies } = await runBindings(alice, {
    calls: [["upload_custom_emoji", "ship_it", file("ship.png", PNG)], ["get_realm_emoji"]],
  });
  expect(replies[0]).toEqual({ result: "success", msg: "" });
  const emoji = Object.values(replies[1]!.emoji as Record<string, Json>);
  expect(emoji).toEqual([
    {
      id: expect.any(String),
      name: "ship_it",
      source_url: `/user_avatars/${sys.realm.id}/emoji/images/${emoji[0]!.id as string}.png`,
      still_url: null,
      deactivated: false,
      author_id: alice.userId,
    },
  ]);
  const { replies: image } = await runBindings(bob, { calls: [["download", emoji[0]!.source_url]] });
  expect(image[0]).toEqual({ status: 200, content_type: "image/png", base64: PNG.toString("base64") });
}, 60_000);

it("an avatar uploaded through call_endpoint (a file without a type), then fetched through /avatar/{user_id}", async () => {
  const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#aa3300" } })
    .png()
    .toBuffer();
  const upload = { url: "users/me/avatar", method: "POST", files: [file("photo.png", photo)] };
  const { replies } = await runBindings(alice, { calls: [["call_endpoint", { kwargs: upload }]] });
  const avatarUrl = replies[0]!.avatar_url as string;
  expect(replies[0]).toEqual({ result: "success", msg: "", avatar_url: avatarUrl });
  expect(avatarUrl).toMatch(new RegExp(`^/user_avatars/${sys.realm.id}/[0-9a-f]+\\.png\\?version=2$`));
  // the bindings' session follows the redirect to the image, as the mobile app's fetch does
  const { replies: fetched } = await runBindings(bob, { calls: [["download", `/avatar/${alice.userId}`]] });
  expect(fetched[0]).toMatchObject({ status: 200, content_type: "image/png" });
  const image = await sharp(Buffer.from(fetched[0]!.base64 as string, "base64")).metadata();
  expect([image.width, image.height]).toEqual([100, 100]);
}, 60_000);
