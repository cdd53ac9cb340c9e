/** The schemes Zulip's sanitize_url lets a link have; any other scheme (javascript:, ms-msdt:, itms:, ...) leaves the text as text. */
const ALLOWED_SCHEMES = new Set(["http", "https", "ftp", "mailto", "file", "bitcoin", "sms", "tel"]);
/** Zulip's locless_schemes: the allowed schemes a link may have without a `//host`. */
const LOCLESS_SCHEMES = new Set(["mailto", "news", "file", "bitcoin", "sms", "tel"]);

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * Zulip's sanitize_url: the link's href, or null when it may not be a link.
 * Addresses become mailto: links, root-relative paths and fragments stay as
 * they are, a URL without a scheme is read as http://, and a scheme must be
 * allowed (and have a host unless it is a locless one).
 */
export function sanitizeUrl(given: string): string | null {
  const url = given.replace(/ /g, "%20");
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (url.startsWith("/") || url.startsWith("#")) return url;
    if (url.includes("@") && !url.includes("/")) return `mailto:${url}`;
    return sanitizeUrl(`http://${url}`);
  }
  if (!ALLOWED_SCHEMES.has(scheme)) return null;
  const hasHost = /^\/\/[^/?#]/.test(url.slice(scheme.length + 1));
  return hasHost || LOCLESS_SCHEMES.has(scheme) ? url : null;
}

/**
 * Zulip's rewrite of links into the organization itself: a link to the
 * realm's own web app (its URL followed by `#...`) becomes the bare fragment,
 * so clients open it in place.
 */
export function realmRelativeUrl(url: string, realmUrl: string | undefined): string {
  if (realmUrl === undefined) return url;
  const prefix = `${realmUrl.replace(/\/$/, "")}/#`;
  return url.startsWith(prefix) ? url.slice(prefix.length - 1) : url;
}

/** Python's urllib.parse.quote(value, safe=""): encodeURIComponent, with !'()* escaped too. */
export const quoteComponent = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Zulip's thumbnail URL of an outside image: readers' clients load it from the
 * server's own /thumbnail path, never from the image's host (which would learn
 * their addresses).
 */
export const thumbnailUrl = (url: string, size: "full" | "thumbnail"): string =>
  `/thumbnail?url=${quoteComponent(url)}&size=${size}`;

/** Zulip's IMAGE_EXTENSIONS: a link whose path ends so gets an inline image preview. */
const IMAGE_EXTENSIONS = [".bmp", ".gif", ".jpe", ".jpeg", ".jpg", ".png", ".webp"];

/** Zulip's is_image: an outside http(s) URL whose path names an image. */
export function isImageUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  // pasteboard.co's image-looking URLs are pages (Zulip's is_image)
  if (parsed.hostname === "pasteboard.co") return false;
  const path = parsed.pathname.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext));
}
