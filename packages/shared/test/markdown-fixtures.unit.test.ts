/**
 * Zulip's own Markdown rendering test cases (third_party/zulip-markdown, a
 * copy of zerver/tests/fixtures/markdown_test_cases.json) as the renderer's
 * specification: every case renders to Zulip's expected_output, except the
 * code blocks listed below with the reason, and Zulip's linkify cases
 * (test_markdown.py's test_linkify) render as Zulip's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderMarkdown } from "../src/markdown";

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  translate_emoticons?: boolean;
}
const fixtures = JSON.parse(
  readFileSync(join(__dirname, "../../../third_party/zulip-markdown/markdown_test_cases.json"), "utf8"),
) as { regular_tests: RegularCase[]; linkify_tests: Array<[string, string, string]> };

/** The organization the cases were written for (Zulip's test server). */
const REALM_URL = "http://zulip.testserver";

/**
 * Cases whose expected_output has Pygments' token spans: no maintained
 * JavaScript highlighter tokenizes as Pygments does, so these render Zulip's
 * code block markup without the spans, which is the case's
 * marked_expected_output (what Zulip's web app renders for them).
 */
const WITHOUT_TOKEN_SPANS = new Set([
  "codeblock_hilite_python",
  "codeblock_canonicalize_lang_alias",
  "tex_fenced_tex",
  "tex_fenced_latex",
  "codeblock_hilite_shebang_feature_no_path_1",
  "codeblock_hilite_shebang_feature_no_path_2",
  "codeblock_hilite_shebang_feature_with_path",
]);

const render = (c: RegularCase) =>
  renderMarkdown(c.input, {
    realmUrl: REALM_URL,
    imagePreviews: true,
    translateEmoticons: c.translate_emoticons === true,
  });
const expected = (c: RegularCase) => (WITHOUT_TOKEN_SPANS.has(c.name) ? c.marked_expected_output! : c.expected_output);

describe("Zulip's regular_tests", () => {
  it.each(fixtures.regular_tests.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    expect(render(c)).toBe(expected(c));
  });

  it("renders all of them as Zulip's server does, but for the listed code blocks as Zulip's web app does", () => {
    const names = new Set(fixtures.regular_tests.map((c) => c.name));
    expect([...WITHOUT_TOKEN_SPANS].filter((name) => !names.has(name))).toEqual([]);
    const rendered = fixtures.regular_tests.map((c) => ({ c, html: render(c) }));
    expect({
      exact: rendered.filter(({ c, html }) => html === c.expected_output).length,
      onlyAsWebApp: rendered.filter(({ c, html }) => html !== c.expected_output && html === c.marked_expected_output)
        .length,
      of: fixtures.regular_tests.length,
    }).toEqual({ exact: 168, onlyAsWebApp: 7, of: 175 });
  });
});

/** test_markdown.py's replaced(): the reference with its %s as the link Zulip makes of the URL. */
function linkified(reference: string, url: string): string {
  if (!reference.includes("%s")) return reference;
  const href = url.startsWith("http") ? url : url.includes("@") ? `mailto:${url}` : `http://${url}`;
  return reference.replace("%s", `<a href="${href}">${url}</a>`);
}

describe("Zulip's linkify_tests", () => {
  it.each(fixtures.linkify_tests)("%j", (input, reference, url) => {
    expect(renderMarkdown(input, { realmUrl: REALM_URL, imagePreviews: true })).toBe(linkified(reference, url));
  });
});
