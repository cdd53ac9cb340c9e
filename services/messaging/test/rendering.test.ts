/**
 * A message's HTML through the HTTP API (Zulip's render_message_markdown):
 * stored once when sent, rendered again when its content is edited, and what
 * POST /messages/render answers is what sending stores — with the
 * organization's users, groups, channels and the sender's settings.
 */
import { SYSTEM_GROUPS, identity, messaging, realmConfig } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser;
let design: number;
let support: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  await createChannel(org, alice, "secret", [alice.userId], { invite_only: true });
  support = (
    await org.call(identity.createUserGroup, { name: "support", description: "", members: [bob.userId] }, alice)
  ).group_id;
});
afterAll(() => org?.stop());

const send = async (user: Credentials, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "design", topic: "rendering", content }, user)).id;
const stored = async (id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, alice)).message.content as string;
const flagsOf = async (user: Credentials, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.flags as string[];
const preview = async (user: Credentials, content: string) =>
  (await org.call(messaging.renderMessage, { content }, user)).rendered;

it("stores Zulip's HTML for mentions, channel links and emoji, and leaves refused links as text", async () => {
  const content =
    "@**Bob** and @*support*: see #**design**, #**design>colors** and #**secret** :airplane: [run](ms-msdt:/id x) ![p](https://tracker.example/p.png)";
  const id = await send(alice, content);
  const thumbnail = (size: string) => `/thumbnail?url=https%3A%2F%2Ftracker.example%2Fp.png&amp;size=${size}`;
  expect(await stored(id)).toBe(
    `<p><span class="user-mention" data-user-id="${bob.userId}">@Bob</span> and ` +
      `<span class="user-group-mention" data-user-group-id="${support}">@support</span>: see ` +
      `<a class="stream" data-stream-id="${design}" href="/#narrow/channel/${design}-design">#design</a>, ` +
      `<a class="stream-topic" data-stream-id="${design}" href="/#narrow/channel/${design}-design/topic/colors">#design &gt; colors</a> ` +
      "and #<strong>secret</strong> " +
      '<span aria-label="airplane" class="emoji emoji-2708" role="img" title="airplane">:airplane:</span> ' +
      '[run](ms-msdt:/id x) !<a href="https://tracker.example/p.png">p</a></p>\n' +
      `<div class="message_inline_image"><a href="https://tracker.example/p.png" title="p"><img data-src-fullsize="${thumbnail("full")}" src="${thumbnail("thumbnail")}"></a></div>`,
  );
  // the preview of a message is what sending it stored
  expect(await preview(alice, content)).toBe(await stored(id));
});

it("renders an edit again, as its sender would, and the preview matches", async () => {
  const id = await send(alice, "plain");
  const edited = "```python\nx = 1\n```\n$$x^2$$ <time:1496701800>";
  await org.call(messaging.updateMessage, { message_id: id, content: edited }, alice);
  const html = await stored(id);
  expect(html).toContain(
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = 1\n</code></pre></div>',
  );
  expect(html).toContain('<span class="katex">');
  expect(html).toContain('<time datetime="2017-06-05T22:30:00Z">1496701800</time>');
  expect(await preview(alice, edited)).toBe(html);
});

it("translates emoticons for a sender who turned translate_emoticons on, in sending and in the preview alike", async () => {
  expect(await preview(bob, "ok :)")).toBe("<p>ok :)</p>");
  await org.call(identity.updateSettings, { translate_emoticons: true }, bob);
  const id = await send(bob, "ok :)");
  expect(await stored(id)).toMatch(
    /^<p>ok <span aria-label="[^"]+" class="emoji emoji-1f\w+" role="img" title="[^"]+">:\w+:<\/span><\/p>$/,
  );
  expect(await preview(bob, "ok :)")).toBe(await stored(id));
  await org.call(identity.updateSettings, { translate_emoticons: false }, bob);
});

it("notifies whom the rendering mentions: users, members of mentioned groups, not quoted or silent mentions", async () => {
  const group = await send(alice, "@*support* please look");
  const quoted = await send(alice, "> @**Bob** said so\n\n@_*support* and `@**Bob**`");
  const wildcard = await send(alice, "@**all** hello");
  expect(await flagsOf(bob, group)).toEqual(["mentioned"]);
  expect(await flagsOf(bob, quoted)).toEqual([]);
  expect(await flagsOf(bob, wildcard)).toEqual(["stream_wildcard_mentioned", "wildcard_mentioned"]);
});

it("refuses a mention of a group its sender may not mention (Zulip's can_mention_group), but not a silent one", async () => {
  await org.call(
    identity.createUserGroup,
    {
      name: "leads",
      description: "",
      members: [bob.userId],
      can_mention_group: SYSTEM_GROUPS["role:administrators"],
    },
    alice,
  );
  await expectZulipError(
    org.call(
      messaging.sendMessage,
      { type: "stream", to: "design", topic: "rendering", content: "@*leads* hi" },
      alice,
    ),
    badRequestError("You are not allowed to mention user group 'leads'."),
  );
  const id = await send(alice, "@_*leads* hi");
  await expectZulipError(
    org.call(messaging.updateMessage, { message_id: id, content: "@*leads* hi" }, alice),
    badRequestError("You are not allowed to mention user group 'leads'."),
  );
});

it("follows the organization's inline_image_preview and default_code_block_language", async () => {
  await org.call(
    realmConfig.updateRealm,
    { inline_image_preview: false, default_code_block_language: "python" },
    org.owner,
  );
  const id = await send(alice, "https://example.com/a.png\n```\nx = 1\n```");
  expect(await stored(id)).toBe(
    '<p><a href="https://example.com/a.png">https://example.com/a.png</a></p>\n' +
      '<div class="codehilite" data-code-language="Python"><pre><span></span><code>x = 1\n</code></pre></div>',
  );
  await org.call(realmConfig.updateRealm, { inline_image_preview: true, default_code_block_language: "" }, org.owner);
});
