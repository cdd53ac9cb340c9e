import { escapeHtml } from "@teamchat/shared";
import { highlightString, quotedPhrases } from "../src/search/search-engine";

describe("highlightString (Zulip's highlight_string)", () => {
  it("wraps each match, given as [offset, length], in a highlight span", () => {
    expect(
      highlightString("<p>discuss lunch after lunch</p>", [
        [11, 5],
        [23, 5],
      ]),
    ).toBe('<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>');
    expect(highlightString("<p>nothing</p>", [])).toBe("<p>nothing</p>");
  });

  it("leaves a match that ends inside a tag as it is", () => {
    const html = '<a href="https://walk.example">walk</a>';
    expect(
      highlightString(html, [
        [17, 4],
        [31, 4],
      ]),
    ).toBe('<a href="https://walk.example"><span class="highlight">walk</span></a>');
  });
});

describe("search operands", () => {
  it("quoted phrases are what must appear as written, found as Zulip's regular expression finds them", () => {
    expect(quotedPhrases('cost "two words" "x"y z"')).toEqual(["two words", "x"]);
    expect(quotedPhrases('"')).toEqual([]);
  });

  it("topics are escaped as Django's escape() does", () => {
    expect(escapeHtml(`Lunch & <plans> "it's"`)).toBe("Lunch &amp; &lt;plans&gt; &quot;it&#x27;s&quot;");
  });
});
