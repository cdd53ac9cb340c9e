import { badRequest } from "../errors";
import zulipEmojiNames from "../../../../third_party/zulip-emoji/emoji_names.json";

/** Zulip's emoji types (reactions, user statuses): each has its own namespace of emoji codes. */
export type ReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";

/** Zulip's built-in extra emoji: reaction type zulip_extra_emoji, the code being the name. */
const ZULIP_EXTRA_EMOJI = ["zulip"];

/**
 * Zulip's name_to_codepoint and codepoint_to_name, as its build_emoji derives them from its own
 * table of names (third_party/zulip-emoji): every canonical name and alias to its emoji, every
 * emoji to its canonical name. Codes are lowercase hex code points joined by "-", without U+FE0F.
 */
const nameToCodepoint = new Map<string, string>();
const codepointToName = new Map<string, string>();
for (const [code, { canonical_name, aliases }] of Object.entries(zulipEmojiNames)) {
  codepointToName.set(code, canonical_name);
  for (const name of [canonical_name, ...aliases]) nameToCodepoint.set(name, code);
}

/** Whether a name is a built-in emoji's (Zulip's name_to_codepoint): custom emoji by that name are for administrators. */
export const isBuiltInEmojiName = (name: string): boolean => nameToCodepoint.has(name);

/** Zulip's name_to_codepoint: the unicode emoji's code, if the name (canonical or alias) is one. */
export const unicodeEmojiCode = (name: string): string | undefined => nameToCodepoint.get(name);

/** Zulip's codepoint_to_name: an emoji's canonical name, if Zulip has the emoji. */
export const unicodeEmojiName = (code: string): string | undefined => codepointToName.get(code);

/**
 * Where clients fetch Zulip's emoji_api.json (register's server_emoji_data_url), and its body:
 * each emoji's names, the canonical one first (Zulip's generate_codepoint_to_names_map), so that
 * clients offer the names the server accepts.
 */
export const EMOJI_DATA_PATH = "/static/generated/emoji/emoji_api.json";
export const emojiApiData = (): { code_to_names: Record<string, string[]> } => ({
  code_to_names: Object.fromEntries(
    Object.entries(zulipEmojiNames).map(([code, { canonical_name, aliases }]) => [code, [canonical_name, ...aliases]]),
  ),
});

/** Whether a name is one of Zulip's own extra emoji (`:zulip:`), rendered as an image from the server's static files. */
export const isZulipExtraEmoji = (name: string): boolean => ZULIP_EXTRA_EMOJI.includes(name);

/**
 * A reaction_type as given: Zulip's three, with service_extra_emoji, another
 * spelling of the built-in extra emoji type, read as zulip_extra_emoji; any
 * other string is kept, for Zulip's own refusals to name it.
 */
export const reactionTypeOf = (given: string): ReactionType | string =>
  given === "service_extra_emoji" ? "zulip_extra_emoji" : given;

/** An organization's custom emoji as emoji checks read them (Zulip's get_all_custom_emoji_for_realm). */
export type CustomEmoji = Record<string, { id: string; name: string; deactivated: boolean }>;

/**
 * Zulip's get_emoji_data: the code and type of an emoji name, the
 * organization's active custom emoji first.
 */
export function emojiByName(name: string, custom: CustomEmoji): { emojiCode: string; reactionType: ReactionType } {
  const own = Object.values(custom).find((e) => e.name === name && !e.deactivated);
  if (own) return { emojiCode: own.id, reactionType: "realm_emoji" };
  if (ZULIP_EXTRA_EMOJI.includes(name)) return { emojiCode: name, reactionType: "zulip_extra_emoji" };
  const code = nameToCodepoint.get(name);
  if (code !== undefined) return { emojiCode: code, reactionType: "unicode_emoji" };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/**
 * Zulip's check_emoji_request: whether a new reaction's (or status's) name,
 * code and type name one emoji; a custom emoji is named by its id, and a
 * deactivated one is refused.
 */
export function checkEmojiRequest(
  name: string,
  code: string,
  type: string,
  custom: CustomEmoji,
): asserts type is ReactionType {
  switch (type) {
    case "realm_emoji": {
      const emoji = custom[code];
      if (!emoji) throw badRequest("Invalid custom emoji.");
      if (emoji.name !== name) throw badRequest("Invalid custom emoji name.");
      if (emoji.deactivated) throw badRequest("This custom emoji has been deactivated.");
      return;
    }
    case "zulip_extra_emoji":
      if (!ZULIP_EXTRA_EMOJI.includes(code)) throw badRequest("Invalid emoji code.");
      if (name !== code) throw badRequest("Invalid emoji name.");
      return;
    case "unicode_emoji":
      if (!codepointToName.has(code)) throw badRequest("Invalid emoji code.");
      if (nameToCodepoint.get(name) !== code) throw badRequest("Invalid emoji name.");
      return;
    default:
      throw badRequest("Invalid emoji type.");
  }
}
