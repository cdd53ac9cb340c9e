/**
 * GET /messages/{message_id} (Zulip's json_fetch_raw_message) and the client
 * name a message records (Zulip's get_client_name: the `client` parameter,
 * else the User-Agent's name, else "Unspecified").
 */
import { messaging, type ParamsIn } from "@teamchat/shared";
import { ApiClient, type Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: number;
let secret: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const getOne = (user: Credentials, params: ParamsIn<typeof messaging.getMessage>) =>
  org.call(messaging.getMessage, params, user);

describe("GET /messages/{message_id}", () => {
  it("returns the message as GET /messages does, with the caller's flags and the Markdown source", async () => {
    const id = await send(alice, { type: "stream", to: "design", topic: "colors", content: "**bold** move" });
    const { result, msg, raw_content, message } = await getOne(bob, { message_id: id });
    expect({ result, msg, raw_content }).toEqual({ result: "success", msg: "", raw_content: "**bold** move" });
    // GET /messages with client_gravatar, as Zulip renders this endpoint's avatars
    const listed = await org.call(messaging.getMessages, { message_ids: [id], narrow: [], client_gravatar: true }, bob);
    expect(message).toEqual(listed.messages[0]);
    expect(message).toMatchObject({
      id,
      sender_id: alice.userId,
      content: "<p><strong>bold</strong> move</p>",
      content_type: "text/html",
      display_recipient: "design",
      stream_id: design,
      subject: "colors",
      flags: [],
    });
    // the sender's copy is read
    expect((await getOne(alice, { message_id: id })).message.flags).toEqual(["read"]);
  });

  it("apply_markdown=false gives the Markdown; allow_empty_topic_name decides how the empty topic is named", async () => {
    const id = await send(alice, { type: "stream", to: "design", topic: "", content: "*hi*" });
    const raw = await getOne(bob, { message_id: id, apply_markdown: false });
    expect(raw.message).toMatchObject({ content: "*hi*", content_type: "text/x-markdown", subject: "general chat" });
    expect((await getOne(bob, { message_id: id, allow_empty_topic_name: true })).message.subject).toBe("");
  });

  it("shows a public channel's message to a member who did not receive it as read and historical", async () => {
    const id = await send(alice, { type: "stream", to: "design", topic: "t", content: "before carol" });
    const { message } = await getOne(carol, { message_id: id });
    expect(message.flags).toEqual(["read", "historical"]);
  });

  it("refuses what the caller may not see with Zulip's Invalid message(s)", async () => {
    const inSecret = await send(alice, { type: "stream", to: secret, topic: "t", content: "hidden" });
    const dm = await send(alice, { type: "direct", to: [bob.userId], content: "just us" });
    const publicOne = await send(alice, { type: "stream", to: "design", topic: "t", content: "public" });
    const invalid = badRequestError("Invalid message(s)");
    await expectZulipError(getOne(bob, { message_id: inSecret }), invalid);
    await expectZulipError(getOne(carol, { message_id: dm }), invalid);
    // guests see only the channels they are subscribed to
    await expectZulipError(getOne(guest, { message_id: publicOne }), invalid);
    await expectZulipError(getOne(bob, { message_id: 999_999_999 }), invalid);
    expect((await getOne(bob, { message_id: dm })).message.flags).toEqual([]);
  });

  it("answers 404 for an id that is not a number, as Zulip's URL patterns do", async () => {
    const res = await org.api(bob).get("/messages/abc");
    expect(res.status).toBe(404);
  });
});

describe("the client a message records", () => {
  const sentWith = async (userAgent: string | null, extra: Record<string, unknown> = {}) => {
    const api = new ApiClient(org.baseUrl, alice, org.realm.host, userAgent);
    const res = await api.post("/messages", { type: "stream", to: "design", topic: "clients", content: "x", ...extra });
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toBeUndefined();
    return (await getOne(bob, { message_id: res.body.id as number })).message.client;
  };

  it("is the User-Agent's name, as Zulip's clients send it", async () => {
    expect(await sentWith("ZulipTerminal/0.7.0 (Linux; Python 3.10.13)")).toBe("ZulipTerminal");
    expect(await sentWith("ZulipPython/0.9.0 (Linux; Python 3.10.13)")).toBe("ZulipPython");
    expect(await sentWith("ZulipMobile/27.200 (Android 13)")).toBe("ZulipMobile");
    expect(await sentWith("curl/8.5.0")).toBe("curl");
  });

  it("is the client parameter when one is given, cut to 30 characters", async () => {
    expect(await sentWith("ZulipPython/0.9.0", { client: "my-integration" })).toBe("my-integration");
    expect(await sentWith(null, { client: "x".repeat(40) })).toBe("x".repeat(30));
  });

  it('is "Unspecified" without a User-Agent', async () => {
    expect(await sentWith(null)).toBe("Unspecified");
  });
});

describe("POST /messages/render", () => {
  it("renders Markdown as a sent message would be", async () => {
    const content = "**bold** <i>x</i> https://zulip.com";
    const { rendered } = await org.call(messaging.renderMessage, { content }, bob);
    const id = await send(bob, { type: "stream", to: "design", topic: "render", content });
    expect(rendered).toBe((await getOne(bob, { message_id: id })).message.content);
    expect(rendered).toBe(
      '<p><strong>bold</strong> &lt;i&gt;x&lt;/i&gt; <a href="https://zulip.com">https://zulip.com</a></p>',
    );
  });

  it("renders mentions as Zulip does: users by name or id, silent ones, wildcards; unknown names stay text", async () => {
    const { rendered } = await org.call(
      messaging.renderMessage,
      {
        content: `@**bob** @_**Bob** @**|${carol.userId}** @**Bob|${carol.userId}** @**all** @_**topic** @**Nobody** a@**Bob**`,
      },
      alice,
    );
    expect(rendered).toBe(
      "<p>" +
        [
          `<span class="user-mention" data-user-id="${bob.userId}">@Bob</span>`,
          `<span class="user-mention silent" data-user-id="${bob.userId}">Bob</span>`,
          `<span class="user-mention" data-user-id="${carol.userId}">@Carol</span>`,
          "@<strong>Bob|" + carol.userId + "</strong>",
          '<span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span>',
          '<span class="topic-mention silent">topic</span>',
          "@<strong>Nobody</strong>",
          "a@<strong>Bob</strong>",
        ].join(" ") +
        "</p>",
    );
  });

  it("refuses content longer than a message may be", async () => {
    await expectZulipError(
      org.call(messaging.renderMessage, { content: "x".repeat(10001) }, bob),
      badRequestError("content is too long (limit: 10000 characters)"),
    );
    expect((await org.call(messaging.renderMessage, { content: "" }, bob)).rendered).toBe("");
  });
});

describe("GET /messages/matches_narrow", () => {
  it("answers which of the messages the user received match, search words highlighted", async () => {
    const hit = await send(alice, {
      type: "stream",
      to: "design",
      topic: "Lunch & <plans>",
      content: "Pizza at *noon*",
    });
    const miss = await send(alice, { type: "stream", to: "design", topic: "other", content: "nothing here" });
    const unseen = await send(alice, { type: "stream", to: secret, topic: "t", content: "pizza secret" });
    const matches = (narrow: Array<{ operator: string; operand: string }>) =>
      org.call(messaging.matchesNarrow, { msg_ids: [hit, miss, unseen], narrow }, bob);
    expect(await matches([{ operator: "search", operand: "pizza" }])).toEqual({
      result: "success",
      msg: "",
      messages: {
        [hit]: {
          match_content: '<p><span class="highlight">Pizza</span> at <em>noon</em></p>',
          match_subject: "Lunch &amp; &lt;plans&gt;",
        },
      },
    });
    // without a search: the content and the escaped topic as they are
    expect((await matches([{ operator: "channel", operand: "design" }])).messages).toEqual({
      [hit]: { match_content: "<p>Pizza at <em>noon</em></p>", match_subject: "Lunch &amp; &lt;plans&gt;" },
      [miss]: { match_content: "<p>nothing here</p>", match_subject: "other" },
    });
    expect((await matches([{ operator: "search", operand: "plans" }])).messages[hit]!.match_subject).toBe(
      'Lunch &amp; &lt;<span class="highlight">plans</span>&gt;',
    );
  });
});

describe("GET /messages/{message_id}/history", () => {
  it("is the message as sent while it has no edits, with the empty topic named as the client asks", async () => {
    const id = await send(alice, { type: "stream", to: "design", topic: "", content: "**v1**" });
    const { message } = await getOne(bob, { message_id: id, apply_markdown: true });
    const history = (allow?: boolean) =>
      org.call(messaging.getMessageHistory, { message_id: id, allow_empty_topic_name: allow }, bob);
    expect(await history()).toEqual({
      result: "success",
      msg: "",
      message_history: [
        {
          topic: "general chat",
          content: "**v1**",
          rendered_content: "<p><strong>v1</strong></p>",
          timestamp: message.timestamp,
          user_id: alice.userId,
        },
      ],
    });
    expect((await history(true)).message_history[0]!.topic).toBe("");
    const hidden = await send(alice, { type: "stream", to: secret, topic: "t", content: "x" });
    await expectZulipError(
      org.call(messaging.getMessageHistory, { message_id: hidden }, bob),
      badRequestError("Invalid message(s)"),
    );
  });
});
