/**
 * Link previews as Zulip's embed_links worker makes them
 * (test_link_embed.py): with the organization's inline_url_embed_preview on,
 * a message linking a web page is stored and announced at once without a
 * card, then the page is fetched (here from a local server on 127.0.0.1, the
 * one private address the test system allows), the message is rendered again
 * with the page's card and every reader gets update_message with
 * rendering_only. Pages are fetched once a day, never for bots' messages, and
 * never from addresses the server may not reach.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { identity, messaging, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

const ROCK = `<html><head><title>Rock page</title>
<meta property="og:title" content="The Rock"><meta property="og:description" content="Description text">
<meta property="og:image" content="/images/rock.jpg"></head><body><p>Hello</p></body></html>`;
const PLAIN = `<html><head><title>Plain &amp; simple</title><meta name="description" content="No picture here"></head></html>`;
const GENERIC = `<html><body><h1>Generic title</h1><img src="https://img.example/pic.png"><p>First words</p></body></html>`;

let org: TestOrganization;
let alice: TestUser, bob: TestUser;
let pages: Server;
let base: string;
const fetched: string[] = [];

beforeAll(async () => {
  pages = createServer((req, res) => {
    fetched.push(req.url!);
    // the query only makes another URL of the same page
    const html = { "/rock": ROCK, "/plain": PLAIN, "/generic": GENERIC, "/other-rock": ROCK }[req.url!.split("?")[0]!];
    if (req.url === "/file") return res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4");
    if (html === undefined) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  await createChannel(org, alice, "web", [alice.userId, bob.userId]);
  await setPreviews(true);
});
afterAll(async () => {
  await org?.stop();
  pages?.close();
});

const setPreviews = (on: boolean) => org.call(realmConfig.updateRealm, { inline_url_embed_preview: on }, org.owner);
const send = async (content: string, user: Credentials = alice) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "web", topic: "links", content }, user)).id;
const edit = (params: ParamsIn<typeof messaging.updateMessage>) => org.call(messaging.updateMessage, params, alice);
const rendered = async (id: number) => (await org.call(messaging.getMessage, { message_id: id }, bob)).message.content;
const rerendered = (reader: EventReader, id: number) =>
  reader.until((events) => events.some((e) => e.type === "update_message" && e.message_id === id && e.rendering_only));
const link = (url: string) => `<p><a href="${url}">${url}</a></p>`;
const card = (url: string, image: string, title: string, description: string) =>
  `<div class="message_embed"><a class="message_embed_image" href="${url}" style="background-image: url(&quot;/thumbnail?url=${encodeURIComponent(image)}&amp;size=full&quot;)"></a><div class="data-container"><div class="message_embed_title"><a href="${url}" title="${title}">${title}</a></div><div class="message_embed_description">${description}</div></div></div>`;

it("announces the message at once, then every reader gets it rendered again with the page's card", async () => {
  const reader = await EventReader.register(org.api(bob), {
    event_types: ["message", "update_message"],
    apply_markdown: true,
  });
  const url = `${base}/rock`;
  const id = await send(url);
  const events = await rerendered(reader, id);
  expect(events.find((e) => e.type === "message")!.message).toMatchObject({ id, content: link(url) });
  const expected = `${link(url)}\n${card(url, `${base}/images/rock.jpg`, "The Rock", "Description text")}`;
  const update = events.find((e) => e.type === "update_message") as ZulipEvent;
  expect(update).toMatchObject({
    user_id: null,
    message_id: id,
    message_ids: [id],
    rendering_only: true,
    content: url,
    rendered_content: expected,
    flags: [],
  });
  expect(await rendered(id)).toBe(expected);
});

it("reads the page's title, description and image from its markup when it has no Open Graph tags", async () => {
  const reader = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
  const url = `${base}/generic`;
  const id = await send(`look: ${url}`);
  await rerendered(reader, id);
  expect(await rendered(id)).toBe(
    `<p>look: <a href="${url}">${url}</a></p>\n${card(url, "https://img.example/pic.png", "Generic title", "First words")}`,
  );
});

it("shows no card for a page without an image, a file that is not HTML, or an address the server may not reach", async () => {
  const reader = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
  const unreachable = "http://127.0.0.2:9/rock";
  const without = await send(`${base}/plain ${base}/file ${unreachable}`);
  // a later message with a card: by the time its update comes, the pages above were fetched
  const marker = await send(`${base}/other-rock`);
  await rerendered(reader, marker);
  await reader.until(() => fetched.includes("/plain") && fetched.includes("/file"));
  expect(reader.ofType("update_message").map((e) => e.message_id)).not.toContain(without);
  expect(await rendered(without)).toBe(
    `<p><a href="${base}/plain">${base}/plain</a> <a href="${base}/file">${base}/file</a> <a href="${unreachable}">${unreachable}</a></p>`,
  );
});

it("fetches a page once a day: a second message linking it gets its card from the stored preview", async () => {
  const reader = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
  const url = `${base}/rock`;
  const before = fetched.filter((p) => p === "/rock").length;
  const id = await send(`again ${url}`);
  await rerendered(reader, id);
  expect(fetched.filter((p) => p === "/rock").length).toBe(before);
});

it("an edit renders the new content with its own cards", async () => {
  const reader = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
  const id = await send("no links yet");
  await edit({ message_id: id, content: `now ${base}/generic` });
  await reader.until((events) => events.some((e) => e.message_id === id && e.rendering_only === true));
  expect(await rendered(id)).toContain('<div class="message_embed">');
  expect(reader.ofType("update_message").map((e) => e.rendering_only)).toEqual([false, true]);
});

it("previews nothing for bots' messages or when the organization turns previews off", async () => {
  const bot = await org.call(identity.createBot, { full_name: "Link Bot", short_name: "linkbot" }, alice);
  const { bots } = await org.call(identity.getBots, {}, alice);
  const botCreds = { email: bots.find((b) => b.full_name === "Link Bot")!.username, apiKey: bot.api_key };
  await org.call(messaging.subscribe, { subscriptions: [{ name: "web" }] }, botCreds);
  const reader = await EventReader.register(org.api(bob), { event_types: ["update_message"] });
  const fromBot = await send(`${base}/bot-page`, botCreds);
  await setPreviews(false);
  const whileOff = await send(`${base}/off-page`);
  await setPreviews(true);
  const marker = await send(`${base}/generic?after`);
  await rerendered(reader, marker);
  expect(fetched).not.toContain("/bot-page");
  expect(fetched).not.toContain("/off-page");
  expect(reader.ofType("update_message").map((e) => e.message_id)).toEqual([marker]);
  expect(await rendered(fromBot)).toBe(link(`${base}/bot-page`));
  expect(await rendered(whileOff)).toBe(link(`${base}/off-page`));
});
