import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { isZulipExtraEmoji, unicodeEmojiCode, unicodeEmojiName } from "../domain/emoji";
import { renderEnv, type RenderEnv } from "./context";
import { splitText } from "./split-text";
import { escapeAttribute } from "./escape";

/** Zulip's EMOTICON_CONVERSIONS: what translate_emoticons turns into which emoji name. */
const EMOTICONS: Record<string, string> = {
  ":)": "smile",
  "(:": "smile",
  ":(": "frown",
  "<3": "heart",
  ":|": "neutral",
  ":/": "confused",
  ";)": "wink",
  ":D": "grinning",
  ":o": "open_mouth",
  ":O": "open_mouth",
  ":p": "stuck_out_tongue",
  ":P": "stuck_out_tongue",
};
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** Zulip's emoticon boundaries: an emoticon stands between these (or the text's ends), not inside a word. */
const TERMINAL = `,.;?!()\\[\\] "'\\n\\t`;
const EMOTICON = `(?<![^${TERMINAL}])(?<emoticon>${Object.keys(EMOTICONS).map(escapeRegExp).join("|")})(?![^${TERMINAL}])`;
/** Zulip's EMOJI_REGEX: `:name:`. */
const NAMED = `:(?<name>[\\p{L}\\p{N}_+-]+):`;
/** One emoji as typed: a flag, a keycap, or pictographs (with modifiers) joined by zero-width joiners. */
const UNICODE =
  "(?<unicode>\\p{Regional_Indicator}{2}|[#*0-9]\\uFE0F?\\u20E3|\\p{Extended_Pictographic}(?:\\uFE0F|\\p{Emoji_Modifier})?(?:\\u200D\\p{Extended_Pictographic}(?:\\uFE0F|\\p{Emoji_Modifier})?)*)";
const WITH_EMOTICONS = new RegExp(`${NAMED}|${UNICODE}|${EMOTICON}`, "gu");
const WITHOUT_EMOTICONS = new RegExp(`${NAMED}|${UNICODE}`, "gu");

type Emoji = { kind: "unicode"; name: string; code: string } | { kind: "image"; name: string; src: string };

/** Zulip's emoji code of typed emoji: their code points in hex (at least 4 digits), without variation selectors. */
const codeOf = (text: string): string =>
  [...text]
    .map((c) => c.codePointAt(0)!.toString(16).padStart(4, "0"))
    .filter((cp) => cp !== "fe0f")
    .join("-");

/** The organization's active custom emoji of that name. */
function customEmoji(name: string, env: RenderEnv): Emoji | null {
  const custom = Object.values(env.realmEmoji ?? {}).find((e) => e.name === name && !e.deactivated);
  return custom ? { kind: "image", name, src: custom.source_url } : null;
}

/** Zulip's EmojiPattern: the organization's active custom emoji first, then Zulip's own, then the unicode ones. */
function namedEmoji(name: string, env: RenderEnv): Emoji | null {
  const custom = customEmoji(name, env);
  if (custom) return custom;
  if (isZulipExtraEmoji(name))
    return { kind: "image", name, src: `/static/generated/emoji/images/emoji/unicode/${name}.png` };
  const code = unicodeEmojiCode(name);
  return code === undefined ? null : { kind: "unicode", name, code };
}

function emojiIn(match: RegExpExecArray, env: RenderEnv): Emoji | null {
  const { name, unicode, emoticon } = match.groups!;
  if (name !== undefined) return namedEmoji(name, env);
  if (emoticon !== undefined) {
    // Zulip's EmoticonTranslation: always the unicode emoji, even where a custom emoji has the name
    const emoticonName = EMOTICONS[emoticon]!;
    return { kind: "unicode", name: emoticonName, code: unicodeEmojiCode(emoticonName)! };
  }
  const code = codeOf(unicode!);
  const canonical = unicodeEmojiName(code);
  // a sequence Zulip does not know stays as typed, whole (not split into the emoji it is made of)
  return canonical === undefined ? null : { kind: "unicode", name: canonical, code };
}

/** Splits a text token into text and emoji tokens. */
function splitEmoji(token: Token, env: RenderEnv, state: StateCore): Token[] {
  const pattern = env.translateEmoticons ? WITH_EMOTICONS : WITHOUT_EMOTICONS;
  return splitText(token, state, pattern, (m) => {
    const emoji = emojiIn(m, env);
    if (!emoji) {
      // `:a:b:` — the closing colon of a failed name may open the next one
      if (m.groups!.name !== undefined) pattern.lastIndex = m.index + m[0].length - 1;
      return null;
    }
    const t = new state.Token("zulip_emoji", "span", 0);
    t.meta = emoji;
    t.level = token.level;
    return { tokens: [t], end: m.index + m[0].length };
  });
}

/** markdown-it core rule: emoji in the text of every inline block, but not in links made of bare URLs. */
function emojiRule(state: StateCore): void {
  const env = renderEnv(state.env);
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    let inBareLink = false;
    block.children = block.children.flatMap((token) => {
      if (token.type === "link_open") inBareLink = token.markup === "linkify" || token.info === "auto";
      if (token.type === "link_close") inBareLink = false;
      return token.type === "text" && !inBareLink ? splitEmoji(token, env, state) : [token];
    });
  }
}

/** Zulip's make_emoji and make_realm_emoji markup. */
function renderEmoji(emoji: Emoji): string {
  const title = escapeAttribute(emoji.name.replace(/_/g, " "));
  const name = escapeAttribute(emoji.name);
  if (emoji.kind === "image") {
    return `<img alt=":${name}:" class="emoji" src="${escapeAttribute(emoji.src)}" title="${title}">`;
  }
  return `<span aria-label="${title}" class="emoji emoji-${emoji.code}" role="img" title="${title}">:${name}:</span>`;
}

export function useZulipEmoji(md: MarkdownIt): void {
  md.core.ruler.push("zulip_emoji", emojiRule);
  md.renderer.rules.zulip_emoji = (tokens, idx) => renderEmoji(tokens[idx]!.meta as Emoji);
}
