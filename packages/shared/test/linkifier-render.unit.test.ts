/**
 * Linkifiers as Zulip's Markdown applies them (zerver/tests/test_markdown.py
 * test_realm_patterns and test_multiple_matching_realm_patterns), and the
 * pattern and URL template rules shared with realm-config.
 */
import {
  compilePattern,
  expandUriTemplate,
  parseUriTemplate,
  uriTemplateVariables,
  compileLinkifiers,
  topicLinks,
  renderMarkdown,
} from "@teamchat/shared";

const trac = { id: 1, pattern: "#(?P<id>[0-9]{2,8})", url_template: "https://trac.example.com/ticket/{id}" };
const render = (content: string, ...list: Array<{ id: number; pattern: string; url_template: string }>) =>
  renderMarkdown(content, { linkifiers: compileLinkifiers(list.length ? list : [trac]) });
const link = (id: string, text = `#${id}`) => `<a href="https://trac.example.com/ticket/${id}">${text}</a>`;

it("links every match, but not inside words, Markdown links or code", () => {
  expect(
    render(
      "We should fix #224 #336 #446 and #115, but not issue#124 or #1124z or [trac #15](https://trac.example.com/ticket/16) today.",
    ),
  ).toBe(
    `<p>We should fix ${link("224")} ${link("336")} ${link("446")} and ${link("115")}, but not issue#124 or #1124z or <a href="https://trac.example.com/ticket/16">trac #15</a> today.</p>`,
  );
  expect(render("`#123` and\n```\n#456\n```")).toBe(
    '<p><code>#123</code> and</p>\n<div class="codehilite"><pre><span></span><code>#456\n</code></pre></div>',
  );
  expect(render("**#123** *#456*")).toBe(`<p><strong>${link("123")}</strong> <em>${link("456")}</em></p>`);
  expect(render("line\n#77")).toBe(`<p>line<br>\n${link("77")}</p>`);
});

it.each([
  ["Hello #123 World", true],
  ["Hello #123World", false],
  ["Hello#123 World", false],
  ["Hello#123World", false],
  ["Hello\u00a0#123\u00a0World", true],
  ["チケットは#123です", false],
  ["チケットは #123です", false],
  ["チケットは#123 です", false],
  ["チケットは #123 です", true],
  ["(#123)", true],
  ["#123>", true],
  ['"#123"', true],
  ["#123@", true],
  [")#123(", false],
  ["##123", false],
])("Zulip's boundaries: %j linked: %s", (content, linked) => {
  expect(render(content).includes('href="https://trac.example.com/ticket/123"')).toBe(linked);
});

it("applies linkifiers in their order: text an earlier one linked is not linked again", () => {
  const list = [
    { id: 1, pattern: "(?P<id>ABC-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
    { id: 2, pattern: "(?P<id>[A-Z][A-Z0-9]*-[0-9]+)", url_template: "https://other-trac.example.com/ticket/{id}" },
  ];
  expect(render("We should fix ABC-123 or XYZ-9 today.", ...list)).toBe(
    '<p>We should fix <a href="https://trac.example.com/ticket/ABC-123">ABC-123</a> or <a href="https://other-trac.example.com/ticket/XYZ-9">XYZ-9</a> today.</p>',
  );
});

it("expands the template as RFC 6570 does and escapes what it must", () => {
  expect(
    render("url-123 is well-escaped", {
      id: 3,
      pattern: "url-(?P<id>[0-9]+)",
      url_template: "https://example.com/A%20Test/%%%ba/{id}",
    }),
  ).toBe('<p><a href="https://example.com/A%20Test/%25%25%ba/123">url-123</a> is well-escaped</p>');
  expect(
    render("community guidelines here", {
      id: 4,
      pattern: "community guidelines",
      url_template: "https://zulip.com/development-community/#community-norms",
    }),
  ).toBe('<p><a href="https://zulip.com/development-community/#community-norms">community guidelines</a> here</p>');
  const parts = parseUriTemplate("https://x.example/{+path}/{?q,lang}{#frag}")!;
  expect(expandUriTemplate(parts, { path: "a/b c", q: "x&y", lang: "", frag: "top" })).toBe(
    "https://x.example/a/b%20c/?q=x%26y&lang=#top",
  );
  // a link whose scheme Zulip does not allow stays text
  expect(render("run js-1", { id: 5, pattern: "js-(?P<n>[0-9])", url_template: "javascript:alert({n})" })).toBe(
    "<p>run js-1</p>",
  );
});

it("translates Python's syntax and refuses what a RegExp cannot run", () => {
  expect(compilePattern(String.raw`(?P<id>\pL+)\-(?P<n>\d+)\z`).groups).toEqual(["id", "n"]);
  expect(compilePattern("(?i)(?P<key>abc)").regex.flags).toContain("i");
  // braces without a repetition, and a lone "]", are literals in re2
  expect(compilePattern("#{(?P<id>[0-9]{2,})}]").regex.exec(" #{123}] ")?.groups?.id).toBe("123");
  expect(() => compilePattern("(?P<id>a)(?=b)")).toThrow("invalid perl operator: (?=");
  expect(() => compilePattern(String.raw`(a)\1`)).toThrow("invalid escape sequence: \\1");
  expect(() => compilePattern("(?P<id>[0-9]+")).toThrow("missing ): (?P<id>[0-9]+");
  expect(uriTemplateVariables("https://x.example/{id}/{?a,b*}")).toEqual(new Set(["id", "a", "b"]));
  expect(uriTemplateVariables("https://x.example/{id")).toBeNull();
  expect(uriTemplateVariables("https://x.example/{!id}")).toBeNull();
});

describe("topic_links (Zulip's topic_links)", () => {
  const links = (topic: string, ...list: Array<{ id: number; pattern: string; url_template: string }>) =>
    topicLinks(topic, compileLinkifiers(list.length ? list : [trac]));
  const ticket = (n: number) => ({ url: `https://trac.example.com/ticket/${n}`, text: `#${n}` });

  it("lists linkifier matches and raw URLs in the topic's order", () => {
    expect(links("#444")).toEqual([ticket(444)]);
    expect(links("#444 https://google.com")).toEqual([
      ticket(444),
      { url: "https://google.com", text: "https://google.com" },
    ]);
    expect(links("#111 https://google.com #111 #222")).toEqual([
      ticket(111),
      { url: "https://google.com", text: "https://google.com" },
      ticket(111),
      ticket(222),
    ]);
    expect(links("#444 #555 #666")).toEqual([ticket(444), ticket(555), ticket(666)]);
    expect(links("Do you like https://example.com? I love it.")).toEqual([
      { url: "https://example.com", text: "https://example.com" },
    ]);
    expect(links("nothing here")).toEqual([]);
    // Zulip's web link rule: bare domains of known top-level domains, as https://
    expect(links("see zulip.com/help and readme.md")).toEqual([
      { url: "https://zulip.com/help", text: "zulip.com/help" },
    ]);
  });

  it("an earlier linkifier wins where matches overlap; linkifiers win over URLs", () => {
    const list = [
      { id: 1, pattern: "(?P<id>ABC-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
      { id: 2, pattern: "(?P<id>[A-Z][A-Z0-9]*-[0-9]+)", url_template: "https://other-trac.example.com/ticket/{id}" },
      { id: 3, pattern: "(?P<id>[A-Z][A-Z0-9]+)", url_template: "https://yet-another-trac.example.com/ticket/{id}" },
    ];
    expect(links("ASD-123 ABC-123 QWE", ...list)).toEqual([
      { url: "https://other-trac.example.com/ticket/ASD-123", text: "ASD-123" },
      { url: "https://trac.example.com/ticket/ABC-123", text: "ABC-123" },
      { url: "https://yet-another-trac.example.com/ticket/QWE", text: "QWE" },
    ]);
    const withUrl = [
      { id: 4, pattern: "ABC-42", url_template: "https://google.com" },
      { id: 5, pattern: String.raw`com.+(?P<id>ABC\-[0-9]+)`, url_template: "https://trac.example.com/ticket/{id}" },
    ];
    expect(links("com ABC-42", ...withUrl)).toEqual([{ url: "https://google.com", text: "ABC-42" }]);
    expect(links("https://foo.com/ABC-123", ...withUrl)).toEqual([
      { url: "https://foo.com/ABC-123", text: "https://foo.com/ABC-123" },
    ]);
    expect(links("com https://foo.com/ABC-123", ...withUrl)).toEqual([
      { url: "https://trac.example.com/ticket/ABC-123", text: "com https://foo.com/ABC-123" },
    ]);
  });
});
