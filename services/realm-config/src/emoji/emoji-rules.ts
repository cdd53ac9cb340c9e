import { badRequest } from "@teamchat/shared";

/** Zulip's check_valid_emoji_name. */
export function checkValidEmojiName(name: string): void {
  if (!name) throw badRequest("Emoji name is missing");
  if (/^[0-9a-z\-_]+$/.test(name)) {
    if (/[-_]$/.test(name)) throw badRequest("Emoji names must end with either a letter or digit.");
    return;
  }
  throw badRequest("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.");
}

/**
 * The image types Zulip takes for emoji (THUMBNAIL_ACCEPT_IMAGE_TYPES) and the
 * extension its source_url gets (Python's guess_extension).
 */
export const EMOJI_IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  "image/avif": ".avif",
  "image/gif": ".gif",
  "image/jpeg": ".jpg",
  "image/png": ".png",
  "image/webp": ".webp",
};
