/** Message events as each client should see them (the "" topic under its display name, gravatar, Markdown). */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";

let org: TestOrganization;
beforeAll(async () => {
  org = await testOrganization();
});
afterAll(() => org?.stop());

const subjectsOf = (reader: EventReader) =>
  reader.ofType("message").map((e) => (e.message as { subject: string }).subject);
const createChannel = (name: string, subscribers: number[]) =>
  org.call(messaging.createChannel, { name, subscribers }, org.owner);
const send = (params: ParamsIn<typeof messaging.sendMessage>) => org.call(messaging.sendMessage, params, org.owner);

it("the empty topic reaches clients without empty_topic_name as the organization's display name", async () => {
  const reader = await org.makeUser("reader");
  await createChannel("chat", [org.owner.userId, reader.userId]);
  const api = org.api(reader);
  const modern = await EventReader.register(api, {
    event_types: ["message"],
    client_capabilities: { empty_topic_name: true },
  });
  const legacy = await EventReader.register(api, { event_types: ["message"] });
  const displayName = (await org.call(notifications.registerQueue, { fetch_event_types: ["realm"] }, reader))
    .realm_empty_topic_display_name;
  expect(displayName).toBe("general chat");

  await send({ type: "stream", to: "chat", topic: "", content: "no topic" });
  await send({ type: "stream", to: "chat", topic: "named", content: "topic" });
  await send({ type: "direct", to: [reader.userId], content: "dm" });
  for (const q of [modern, legacy]) await q.until((es) => es.length === 3);

  expect(subjectsOf(modern)).toEqual(["", "named", ""]);
  // direct messages have no topic: their empty subject stays empty
  expect(subjectsOf(legacy)).toEqual(["general chat", "named", ""]);
});

it("content and avatar follow the queue's apply_markdown and client_gravatar", async () => {
  const viewer = await org.makeUser("viewer");
  await createChannel("looks", [org.owner.userId, viewer.userId]);
  const api = org.api(viewer);
  const byDefault = await EventReader.register(api, { event_types: ["message"] });
  const rendered = await EventReader.register(api, {
    event_types: ["message"],
    apply_markdown: true,
    client_gravatar: false,
  });
  await send({ type: "stream", to: "looks", topic: "t", content: "**bold**" });
  const [plain] = (await byDefault.until((es) => es.length === 1)).map((e) => e.message as Record<string, unknown>);
  const [html] = (await rendered.until((es) => es.length === 1)).map((e) => e.message as Record<string, unknown>);
  expect(plain).toMatchObject({ content: "**bold**", content_type: "text/x-markdown", avatar_url: null });
  expect(html).toMatchObject({ content: "<p><strong>bold</strong></p>", content_type: "text/html" });
  expect(html.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
});

it("each recipient's queue carries that user's flags", async () => {
  const peer = await org.makeUser("peer");
  await createChannel("flags", [org.owner.userId, peer.userId]);
  const [mine, theirs] = await Promise.all(
    [org.owner, peer].map((u) => EventReader.register(org.api(u), { event_types: ["message"] })),
  );
  const { id } = await send({ type: "stream", to: "flags", topic: "t", content: "hello" });
  // the sender has read their own message (read_by_sender defaults to true)
  for (const [queue, flags] of [
    [mine, ["read"]],
    [theirs, []],
  ] as const) {
    const [event] = await queue.until((es) => es.length === 1);
    expect(event).toMatchObject({ type: "message", message: { id }, flags });
  }
});
