/** Message events as each client should see them (requirements, convention 9). */
import { ok } from "@teamchat/shared/src/testing/api";
import { EventReader } from "../../../test/support/events";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser } from "../../../test/support/users";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ env: { EVENT_HEARTBEAT_SECONDS: "1" } });
});
afterAll(() => sys?.stop());

const subjectsOf = (reader: EventReader) =>
  reader.ofType("message").map((e) => (e.message as { subject: string }).subject);

it("the empty topic reaches clients without empty_topic_name as the organization's display name", async () => {
  const reader = await makeUser(sys, "reader");
  ok(
    await sys.api(sys.owner).post("/channels/create", { name: "chat", subscribers: [sys.owner.userId, reader.userId] }),
  );
  const api = sys.api(reader);
  const modern = await EventReader.register(api, {
    event_types: ["message"],
    client_capabilities: { empty_topic_name: true },
  });
  const legacy = await EventReader.register(api, { event_types: ["message"] });
  const displayName = ok(await api.post("/register", { fetch_event_types: ["realm"] })).realm_empty_topic_display_name;
  expect(displayName).toBe("general chat");

  ok(await sys.api(sys.owner).post("/messages", { type: "stream", to: "chat", topic: "", content: "no topic" }));
  ok(await sys.api(sys.owner).post("/messages", { type: "stream", to: "chat", topic: "named", content: "topic" }));
  ok(await sys.api(sys.owner).post("/messages", { type: "direct", to: [reader.userId], content: "dm" }));
  for (const q of [modern, legacy]) await q.until((es) => es.length === 3);

  expect(subjectsOf(modern)).toEqual(["", "named", ""]);
  // direct messages have no topic: their empty subject stays empty
  expect(subjectsOf(legacy)).toEqual(["general chat", "named", ""]);
});

it("content and avatar follow the queue's apply_markdown and client_gravatar", async () => {
  const viewer = await makeUser(sys, "viewer");
  ok(
    await sys
      .api(sys.owner)
      .post("/channels/create", { name: "looks", subscribers: [sys.owner.userId, viewer.userId] }),
  );
  const api = sys.api(viewer);
  const byDefault = await EventReader.register(api, { event_types: ["message"] });
  const rendered = await EventReader.register(api, {
    event_types: ["message"],
    apply_markdown: true,
    client_gravatar: false,
  });
  ok(await sys.api(sys.owner).post("/messages", { type: "stream", to: "looks", topic: "t", content: "**bold**" }));
  const [plain] = (await byDefault.until((es) => es.length === 1)).map((e) => e.message as Record<string, unknown>);
  const [html] = (await rendered.until((es) => es.length === 1)).map((e) => e.message as Record<string, unknown>);
  expect(plain).toMatchObject({ content: "**bold**", content_type: "text/x-markdown", avatar_url: null });
  expect(html).toMatchObject({ content: "<p><strong>bold</strong></p>", content_type: "text/html" });
  expect(html.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
});
