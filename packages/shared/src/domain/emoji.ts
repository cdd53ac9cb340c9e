import { readFileSync } from "node:fs";
import type { CompactEmoji, ShortcodesDataset } from "emojibase";
import { badRequest } from "../errors";

/** Zulip's emoji types (reactions, user statuses): each has its own namespace of emoji codes. */
export type ReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";

/**
 * Shortcode sets of emojibase-data whose names make the unicode emoji names, in
 * the order a name shared by two emoji is given to the first set's: iamcal's
 * (Zulip builds its names from iamcal's emoji data), then GitHub's, CLDR's,
 * emojibase's and JoyPixels'. Zulip renames many emoji of its own accord; these
 * sets together give most of Zulip's names the emoji Zulip gives them,
 * iamcal's alone far fewer (docs/zulip-compatibility.md has the counts).
 */
const SHORTCODE_SETS = ["iamcal", "github", "cldr", "emojibase", "joypixels"];
/** emojibase's group of skin tone and hair components: parts of emoji, not emoji (nor are the ungrouped regional indicators). */
const COMPONENT_GROUP = 2;

/** Zulip's built-in extra emoji: reaction type zulip_extra_emoji, the code being the name. */
const ZULIP_EXTRA_EMOJI = ["zulip"];

/**
 * Zulip's emoji code of a unicode emoji: its code points in lowercase hex,
 * joined by "-", without the U+FE0F variation selectors (Zulip's unqualify_emoji).
 */
const emojiCode = (hexcode: string): string =>
  hexcode
    .toLowerCase()
    .split("-")
    .filter((cp) => cp !== "fe0f")
    .join("-");

interface UnicodeEmoji {
  /** Zulip's name_to_codepoint: a name's emoji in the first set that has the name */
  codeByName: Map<string, string>;
  /** every emoji a name is given to by any set: a client's name and code pair is checked against these */
  codesByName: Map<string, Set<string>>;
  /** the codes of Zulip's codepoint_to_name */
  codes: Set<string>;
  /** Zulip's codepoint_to_name: the name an emoji typed as a character is shown with (its first name in the sets' order) */
  nameByCode: Map<string, string>;
}

const readData = <T>(file: string): T =>
  JSON.parse(readFileSync(require.resolve(`emojibase-data/${file}`), "utf8")) as T;

let unicodeEmoji: UnicodeEmoji | undefined;

/** The emoji data, read on first use (about 1 MB of JSON) and kept for the life of the process. */
function unicode(): UnicodeEmoji {
  if (unicodeEmoji) return unicodeEmoji;
  const codes = new Set(
    readData<CompactEmoji[]>("en/compact.json")
      .filter((e) => e.group !== undefined && e.group !== COMPONENT_GROUP)
      .map((e) => emojiCode(e.hexcode)),
  );
  const codeByName = new Map<string, string>();
  const codesByName = new Map<string, Set<string>>();
  const nameByCode = new Map<string, string>();
  for (const set of SHORTCODE_SETS) {
    for (const [hexcode, names] of Object.entries(readData<ShortcodesDataset>(`en/shortcodes/${set}.json`))) {
      const code = emojiCode(hexcode);
      if (!codes.has(code)) continue;
      for (const name of typeof names === "string" ? [names] : names) {
        if (!codeByName.has(name)) codeByName.set(name, code);
        if (!nameByCode.has(code) && codeByName.get(name) === code) nameByCode.set(code, name);
        codesByName.set(name, (codesByName.get(name) ?? new Set()).add(code));
      }
    }
  }
  unicodeEmoji = { codeByName, codesByName, codes, nameByCode };
  return unicodeEmoji;
}

/** Whether a name is a built-in emoji's (Zulip's name_to_codepoint): custom emoji by that name are for administrators. */
export const isBuiltInEmojiName = (name: string): boolean => unicode().codeByName.has(name);

/** Zulip's name_to_codepoint for Markdown's :name: syntax: the unicode emoji's code, if the name is one. */
export const unicodeEmojiCode = (name: string): string | undefined => unicode().codeByName.get(name);

/** Zulip's codepoint_to_name for an emoji typed as characters: its name, if Zulip has the emoji. */
export const unicodeEmojiName = (code: string): string | undefined => unicode().nameByCode.get(code);

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
  const code = unicode().codeByName.get(name);
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
    case "unicode_emoji": {
      const { codes, codesByName } = unicode();
      if (!codes.has(code)) throw badRequest("Invalid emoji code.");
      // the sets disagree on some names (e.g. smile): any of them naming this emoji so will do
      if (!codesByName.get(name)?.has(code)) throw badRequest("Invalid emoji name.");
      return;
    }
    default:
      throw badRequest("Invalid emoji type.");
  }
}
