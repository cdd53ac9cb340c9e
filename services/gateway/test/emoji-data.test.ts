/**
 * Zulip's emoji_api.json at register's server_emoji_data_url: the names of the
 * emoji the server accepts, from the same table (third_party/zulip-emoji), so
 * that a client's emoji picker offers names reactions and messages take.
 */
import { messaging } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";

let org: TestOrganization;
beforeAll(async () => {
  org = await testOrganization();
});
afterAll(() => org?.stop());

it("is served to anyone at the URL register gives, each emoji's names with the canonical one first", async () => {
  const { server_emoji_data_url } = ok(await org.api(org.owner).post("/register", { fetch_event_types: ["realm"] }));
  expect(server_emoji_data_url).toBe("/static/generated/emoji/emoji_api.json");
  const res = await fetch(`${org.baseUrl}${server_emoji_data_url}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const { code_to_names } = (await res.json()) as { code_to_names: Record<string, string[]> };
  expect(Object.keys(code_to_names)).toHaveLength(1847);
  expect(code_to_names["1f642"]).toEqual(["smile"]);
  expect(code_to_names["263a"]).toEqual(["smiling_face", "relaxed"]);
  expect(code_to_names["1f44d"]).toEqual(["+1", "thumbs_up", "like"]);

  // a name from the file reacts with that file's emoji
  const { id } = await org.call(
    messaging.sendMessage,
    { type: "private", to: [org.owner.userId], content: "hi" },
    org.owner,
  );
  await org.call(messaging.addReaction, { message_id: id, emoji_name: "like" }, org.owner);
  const { message } = await org.call(messaging.getMessage, { message_id: id }, org.owner);
  expect(message.reactions).toEqual([
    { emoji_name: "like", emoji_code: "1f44d", reaction_type: "unicode_emoji", user_id: org.owner.userId },
  ]);
});
