/**
 * Zulip's own Markdown rendering test cases (third_party/zulip-markdown, a
 * copy of zerver/tests/fixtures/markdown_test_cases.json) as the renderer's
 * specification: every case renders to Zulip's expected_output, except the
 * ones listed below with the reason, and Zulip's linkify cases
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

/**
 * Cases that differ from Zulip's only in the emoji's names and codes: Zulip
 * names emoji by its own curated table (tools/setup/emoji/emoji_names.py:
 * :smile: is U+1F642, U+1F384 is :holiday_tree:), which no maintained
 * dataset carries; the server names them by emojibase-data's shortcode sets,
 * as its reactions do. These are compared with every emoji's markup masked:
 * where the emoji are and what surrounds them must be Zulip's.
 */
const EMOJI_NAMES_DIFFER = new Set([
  "star_emoji",
  "many_emoji",
  // its `:)` is Zulip's exactly; its `:smile:` is named by the dataset
  "translate_emoticons",
  "emoji_sequence_one",
  "emoji_sequence_two",
  "emojis_without_space",
  "emojis_newline",
  "unicode_emoji",
  "two_unicode_emoji",
  "two_unicode_emoji_separated_by_text",
  "miscellaneous_symbols_and_pictographs",
  "miscellaneous_and_dingbats_emoji",
  "supplemental_symbols_and_pictographs",
  "miscellaneous_symbols_and_arrows",
  "emoji_alongside_punctuation",
  "valid_emoji_preceded_by_invalid_emoji",
  "spoilers_with_header_markdown",
]);
const EMOJI_MARKUP =
  /<span aria-label="[^"]*" class="emoji emoji-[0-9a-f-]+" role="img" title="[^"]*">:[^<:]+:<\/span>/g;
const maskEmoji = (html: string) => html.replace(EMOJI_MARKUP, "<emoji>");

/** Cases not passed, each with the reason. */
const SKIPPED: Record<string, string> = {
  new_emoji_test: ":gold: is a name of Zulip's own emoji table, not of the emoji dataset",
  fried_egg_emoji_nonexistent: "Zulip's emoji table leaves :fried_egg: out; the emoji dataset has it",
  emojis_with_zwj_are_banned:
    "Zulip's emoji table leaves out family sequences such as :man-girl-girl:; the emoji dataset has them",
  unrecognized_emoji_sequence_one:
    "Zulip's emoji table predates Unicode 15.1's phoenix; the emoji dataset (Emoji 17) has it",
  unrecognized_emoji_sequence_two:
    "Zulip's emoji table predates Unicode 15.1's lime; the emoji dataset (Emoji 17) has it",
};

const render = (c: RegularCase) => {
  const html = renderMarkdown(c.input, {
    realmUrl: REALM_URL,
    imagePreviews: true,
    translateEmoticons: c.translate_emoticons === true,
  });
  return EMOJI_NAMES_DIFFER.has(c.name) ? maskEmoji(html) : html;
};
const expected = (c: RegularCase) => {
  if (WITHOUT_TOKEN_SPANS.has(c.name)) return c.marked_expected_output!;
  return EMOJI_NAMES_DIFFER.has(c.name) ? maskEmoji(c.expected_output) : c.expected_output;
};

const checked = fixtures.regular_tests.filter((c) => !(c.name in SKIPPED));

describe("Zulip's regular_tests", () => {
  it.each(checked.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    expect(render(c)).toBe(expected(c));
  });

  it("lists only cases that exist and passes all the others", () => {
    const names = new Set(fixtures.regular_tests.map((c) => c.name));
    expect(Object.keys(SKIPPED).filter((name) => !names.has(name))).toEqual([]);
    expect([...WITHOUT_TOKEN_SPANS, ...EMOJI_NAMES_DIFFER].filter((name) => !names.has(name))).toEqual([]);
    const passing = checked.filter((c) => render(c) === expected(c)).length;
    expect({ passing, of: fixtures.regular_tests.length }).toEqual({
      passing: fixtures.regular_tests.length - Object.keys(SKIPPED).length,
      of: fixtures.regular_tests.length,
    });
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
