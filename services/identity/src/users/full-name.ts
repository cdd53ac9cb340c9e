import { badRequest } from "@teamchat/shared";

const MAX_NAME_LENGTH = 100;
const MIN_NAME_LENGTH = 2;
// Characters that would break mention syntax (Zulip's NAME_INVALID_CHARS).
const NAME_INVALID_CHARS = ["*", "`", "\\", ">", '"', "@"];

/** Zulip's check_full_name: the stripped name, or Zulip's error. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw badRequest("Name too long!");
  if (name.length < MIN_NAME_LENGTH) throw badRequest("Name too short!");
  // eslint-disable-next-line no-control-regex
  if (NAME_INVALID_CHARS.some((c) => name.includes(c)) || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest("Invalid characters in name!");
  }
  if (/\|\d+$/.test(name)) throw badRequest("Invalid format!");
  return name;
}

/** Django's EmailField, close enough: one @, a dotted domain, no spaces. */
export const isValidEmail = (email: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
