/**
 * What Zulip's rendering cases leave to the organization's data (Zulip's
 * test_markdown.py: mentions, user groups, channel links, custom emoji) and
 * the renderer's safety: refused link schemes stay text, images are shown
 * only through the server's /thumbnail path.
 */
import { SYSTEM_GROUPS } from "../src/domain/groups";
import {
  mentionTargets,
  renderMarkdown,
  renderWithMentions,
  type LinkEmbed,
  type RenderContext,
} from "../src/markdown";

const everyone = SYSTEM_GROUPS["role:everyone"];

const context: RenderContext = {
  mentionTargets: mentionTargets([
    { user_id: 10, full_name: "Iago" },
    { user_id: 11, full_name: 'Cordelia "Lear"' },
    { user_id: 12, full_name: "Gone", is_active: false },
  ]),
  userGroups: new Map([
    ["support", { id: 31, name: "support", deactivated: false, canMention: everyone }],
    ["old team", { id: 32, name: "old team", deactivated: true, canMention: everyone }],
  ]),
  channels: new Map([
    ["Denmark", 1],
    ["core team", 2],
  ]),
  realmEmoji: {
    "7": {
      id: "7",
      name: "green_tick",
      source_url: "/user_avatars/2/emoji/images/7.png",
      still_url: null,
      deactivated: false,
      author_id: 10,
    },
    "8": {
      id: "8",
      name: "gone",
      source_url: "/user_avatars/2/emoji/images/8.png",
      still_url: null,
      deactivated: true,
      author_id: 10,
    },
  },
  realmUrl: "http://zulip.testserver",
  imagePreviews: true,
};
const render = (text: string, more: Partial<RenderContext> = {}) => renderMarkdown(text, { ...context, ...more });

it("mentions users, silently too, and quoted mentions notify nobody", () => {
  expect(render("@**Iago** @_**Iago** @**|11**")).toBe(
    '<p><span class="user-mention" data-user-id="10">@Iago</span> <span class="user-mention silent" data-user-id="10">Iago</span> <span class="user-mention" data-user-id="11">@Cordelia "Lear"</span></p>',
  );
  expect(render("> @**Iago** said")).toBe(
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="10">Iago</span> said</p>\n</blockquote>',
  );
  expect(render("@**nobody**")).toBe("<p>@<strong>nobody</strong></p>");
  // a deactivated user's mention is silent
  expect(render("@**Gone**")).toBe('<p><span class="user-mention silent" data-user-id="12">Gone</span></p>');
});

it("mentions user groups (Zulip's UserGroupMentionPattern); a deactivated group silently", () => {
  expect(render("@*support* @_*Support* @*old team*")).toBe(
    '<p><span class="user-group-mention" data-user-group-id="31">@support</span> <span class="user-group-mention silent" data-user-group-id="31">support</span> <span class="user-group-mention silent" data-user-group-id="32">old team</span></p>',
  );
  // no group of that name: Zulip's emphasis
  expect(render("@*nogroup*")).toBe("<p>@<em>nogroup</em></p>");
});

it("links channels, topics and messages (Zulip's StreamPattern and StreamTopicPattern)", () => {
  expect(render("#**Denmark** #**core team>design & code** #**Denmark>**")).toBe(
    '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a> ' +
      '<a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-core-team/topic/design.20.26.20code">#core team &gt; design &amp; code</a> ' +
      '<a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Denmark/topic/">#Denmark &gt; <em>general chat</em></a></p>',
  );
  expect(render("#**Denmark>lunch@42**")).toBe(
    '<p><a class="message-link" href="/#narrow/channel/1-Denmark/topic/lunch/near/42">#Denmark &gt; lunch @ 💬</a></p>',
  );
  // a channel the context does not have stays text
  expect(render("#**secret**")).toBe("<p>#<strong>secret</strong></p>");
});

it("renders the organization's custom emoji before the unicode ones, and not deactivated ones", () => {
  expect(render(":green_tick: :gone:")).toBe(
    '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/7.png" title="green tick"> :gone:</p>',
  );
});

it("translates emoticons only for a sender who has it on, always into the unicode emoji (Zulip's EmoticonTranslation)", () => {
  const smile = '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span>';
  expect(render("ok :)")).toBe("<p>ok :)</p>");
  expect(render("ok :)", { translateEmoticons: true })).toBe(`<p>ok ${smile}</p>`);
  // a custom emoji named smile takes `:smile:`, not `:)`
  const customSmile = { ...context.realmEmoji!["7"]!, name: "smile" };
  expect(render(":smile: :)", { translateEmoticons: true, realmEmoji: { "7": customSmile } })).toBe(
    `<p><img alt=":smile:" class="emoji" src="/user_avatars/2/emoji/images/7.png" title="smile"> ${smile}</p>`,
  );
});

it("leaves links with schemes Zulip refuses as text", () => {
  for (const url of [
    "ms-msdt:/id PCWDiagnostic",
    "javascript:alert(1)",
    "itms://itunes.com/app",
    "foo://bar",
    "time:x",
    "data:text/html,x",
  ]) {
    expect(render(`[x](${url})`)).not.toContain("<a ");
  }
  expect(render("[x](ms-msdt:/id)")).toBe("<p>[x](ms-msdt:/id)</p>");
  expect(render("[call](tel:+14155551234) [mail](mailto:a@b.example)")).toBe(
    '<p><a href="tel:+14155551234">call</a> <a href="mailto:a@b.example">mail</a></p>',
  );
});

it("never makes readers load an image from another host: `![]()` is a link, previews go through /thumbnail", () => {
  const html = render("![pixel](https://tracker.example/pixel.png)");
  expect(html).toBe(
    '<p>!<a href="https://tracker.example/pixel.png">pixel</a></p>\n' +
      '<div class="message_inline_image"><a href="https://tracker.example/pixel.png" title="pixel"><img data-src-fullsize="/thumbnail?url=https%3A%2F%2Ftracker.example%2Fpixel.png&amp;size=full" src="/thumbnail?url=https%3A%2F%2Ftracker.example%2Fpixel.png&amp;size=thumbnail"></a></div>',
  );
  expect([...html.matchAll(/<img [^>]*src="([^"]*)"/g)].map((m) => m[1]!.startsWith("/thumbnail?"))).toEqual([true]);
});

it("keeps /me messages as Zulip does (clients show them by the leading /me)", () => {
  expect(render("/me is happy")).toBe("<p>/me is happy</p>");
});

it("renders the same text with the same context the same way", () => {
  const text = "@**Iago** see #**Denmark** :green_tick: $$x^2$$ <time:1496701800> https://example.com/a.png";
  expect(render(text)).toBe(render(text));
});

describe("link previews (Zulip's test_inline_url_embed_preview)", () => {
  const page = "http://test.org/";
  const rock = {
    title: "The Rock",
    description: "Description text",
    image: "http://ia.media-imdb.com/images/rock.jpg",
  };
  const withPreview = (embeds: Map<string, LinkEmbed | null>) =>
    renderWithMentions(`${page}`, { ...context, linkPreviews: true, linkEmbeds: embeds });

  it("lists a page not fetched yet, and renders without its card", () => {
    const first = renderWithMentions(`see ${page} and > not`, { ...context, linkPreviews: true });
    expect(first.html).toBe(`<p>see <a href="${page}">${page}</a> and &gt; not</p>`);
    expect(first.linksForPreview).toEqual([page]);
  });

  it("appends the fetched page's card, its image through the server's proxy", () => {
    const { html, linksForPreview } = withPreview(new Map([[page, rock]]));
    expect(html).toBe(
      `<p><a href="${page}">${page}</a></p>\n<div class="message_embed"><a class="message_embed_image" href="${page}" style="background-image: url(&quot;/thumbnail?url=http%3A%2F%2Fia.media-imdb.com%2Fimages%2Frock.jpg&amp;size=full&quot;)"></a><div class="data-container"><div class="message_embed_title"><a href="${page}" title="The Rock">The Rock</a></div><div class="message_embed_description">Description text</div></div></div>`,
    );
    expect(linksForPreview).toEqual([]);
  });

  it("shows no card for a page without an image, one fetched as nothing, or with previews off", () => {
    const plain = `<p><a href="${page}">${page}</a></p>`;
    expect(withPreview(new Map([[page, { title: "No image" }]])).html).toBe(plain);
    expect(withPreview(new Map([[page, null]])).html).toBe(plain);
    const off = renderWithMentions(page, { ...context, linkEmbeds: new Map([[page, rock]]) });
    expect(off).toMatchObject({ html: plain, linksForPreview: [] });
  });

  it("previews nothing in quotes, images, links into the organization, or past 24 links", () => {
    const quoted = renderWithMentions(`> ${page}`, { ...context, linkPreviews: true });
    expect(quoted.linksForPreview).toEqual([]);
    const others = renderWithMentions(
      "http://zulip.testserver/#narrow/channel/1 https://example.com/cat.png mailto:a@example.com",
      { ...context, linkPreviews: true },
    );
    expect(others.linksForPreview).toEqual([]);
    const many = Array.from({ length: 25 }, (_, i) => `https://example.com/${i}`).join(" ");
    expect(renderWithMentions(many, { ...context, linkPreviews: true }).linksForPreview).toEqual([]);
  });
});
