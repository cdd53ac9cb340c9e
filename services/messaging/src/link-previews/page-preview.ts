/**
 * Zulip's url_preview.get_link_embed_data: what a linked web page shows of
 * itself — its Open Graph title, description and image, or else its <title>
 * (or first <h1>), meta description (or first paragraph) and the image after
 * its first heading (Zulip's OpenGraphParser, then GenericParser).
 */
import type { IncomingMessage } from "node:http";
import { MIMEType } from "node:util";
import { parseDocument, DomUtils } from "htmlparser2";
import type { Element } from "domhandler";
import { ReachableAddresses, ZULIP_VERSION, fetchChecked, type LinkEmbed } from "@teamchat/shared";

/** Zulip's url_preview link_regex: http(s) to a domain name or an IPv4 address. */
const LINK =
  /^https?:\/\/(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,6}\.?|[a-z0-9-]{2,}\.?)|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d+)?(?:\/?|[/?]\S+)$/i;

/** The most of a page read: the head, where its preview is, comes first. */
const MAX_PAGE_BYTES = 1024 * 1024;

export interface PageFetchSettings {
  addresses: ReachableAddresses;
  /** Zulip's url_preview TIMEOUT, for the whole fetch */
  timeoutMs: number;
  /** Zulip's ZULIP_URL_PREVIEW_USER_AGENT */
  userAgent: string;
}

/** Zulip's url_preview TIMEOUT: how long one page's fetch may take. */
const LINK_PREVIEW_TIMEOUT_MS = 15_000;

/** Zulip's page fetch settings, reaching the private addresses of CAMO_ALLOWED_PRIVATE_ADDRESSES. */
export const zulipPageFetchSettings = (allowedPrivateAddresses: string): PageFetchSettings => ({
  addresses: new ReachableAddresses(allowedPrivateAddresses),
  timeoutMs: LINK_PREVIEW_TIMEOUT_MS,
  userAgent: `Mozilla/5.0 (compatible; ZulipURLPreview/${ZULIP_VERSION})`,
});

/** The body's first MAX_PAGE_BYTES. */
async function pageBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_PAGE_BYTES) break;
  }
  response.destroy();
  return Buffer.concat(chunks).subarray(0, MAX_PAGE_BYTES);
}

/** Zulip's valid_content_type: HTML, or no type given and a body that starts as HTML does (Zulip asks libmagic). */
function htmlCharset(contentType: string | undefined, body: Buffer): string | undefined {
  if (contentType === undefined || contentType === "") {
    return /^\s*<(?:!doctype\s+html|html|head|body|title|meta)\b/i.test(body.subarray(0, 512).toString("latin1"))
      ? "utf-8"
      : undefined;
  }
  try {
    const type = new MIMEType(contentType);
    return type.essence === "text/html" ? (type.params.get("charset") ?? "utf-8") : undefined;
  } catch {
    return undefined;
  }
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

const nonEmpty = (text: string | undefined): string | undefined => (text ? text : undefined);

/** Zulip's GenericParser._get_image: the first <img src> among the first heading's next siblings. */
function imageAfterHeading(h1: Element | undefined): string | undefined {
  for (let e = h1 && DomUtils.nextElementSibling(h1); e; e = DomUtils.nextElementSibling(e)) {
    if (e.name === "img" && e.attribs.src !== undefined) return nonEmpty(e.attribs.src);
  }
  return undefined;
}

/** Zulip's OpenGraphParser and GenericParser, merged as Zulip's UrlEmbedData.merge: Open Graph first. */
export function parsePage(html: string): LinkEmbed {
  const document = parseDocument(html);
  const elements = DomUtils.findAll(() => true, document.children);
  const openGraph = new Map<string, string>();
  for (const meta of elements.filter((e) => e.name === "meta")) {
    const property = meta.attribs.property;
    if (property === "og:title" || property === "og:description" || property === "og:image") {
      if (meta.attribs.content !== undefined) openGraph.set(property.slice(3), meta.attribs.content);
    }
  }
  const first = (name: string) => elements.find((e) => e.name === name);
  const text = (e: Element | undefined) => (e ? DomUtils.textContent(e) : undefined);
  const h1 = first("h1");
  const after = (start: Element | undefined, name: string): Element | undefined =>
    start && elements.slice(elements.indexOf(start) + 1).find((e) => e.name === name);
  const genericTitle = nonEmpty(text(first("title"))) ?? nonEmpty(text(h1));
  const metaDescription = elements.find((e) => e.name === "meta" && e.attribs.name === "description");
  const genericDescription =
    nonEmpty(metaDescription?.attribs.content) ?? nonEmpty(text(after(h1, "p"))) ?? nonEmpty(text(first("p")));
  const embed: LinkEmbed = {};
  const title = openGraph.get("title") ?? genericTitle;
  const description = openGraph.get("description") ?? genericDescription;
  const image = openGraph.get("image") ?? imageAfterHeading(h1);
  if (title !== undefined) embed.title = title;
  if (description !== undefined) embed.description = description;
  if (image !== undefined) embed.image = image;
  return embed;
}

/**
 * The page's preview, or null when it has none: not a link Zulip previews, not
 * reachable, not HTML, or an error status. Zulip's oEmbed providers are not
 * asked: the page's own markup is what is shown.
 */
export async function fetchPagePreview(url: string, settings: PageFetchSettings): Promise<LinkEmbed | null> {
  if (!LINK.test(url) || !URL.canParse(url)) return null;
  let fetched: { response: IncomingMessage; url: URL };
  try {
    fetched = await fetchChecked(new URL(url), {
      method: "GET",
      headers: { "user-agent": settings.userAgent, accept: "text/html" },
      addresses: settings.addresses,
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch {
    return null;
  }
  const { response } = fetched;
  if (response.statusCode! < 200 || response.statusCode! >= 400) {
    response.destroy();
    return null;
  }
  let body: Buffer;
  try {
    body = await pageBody(response);
  } catch {
    return null;
  }
  const charset = htmlCharset(response.headers["content-type"], body);
  if (charset === undefined) return null;
  const embed = parsePage(decode(body, charset));
  if (embed.image !== undefined) {
    // relative to where the page was found (Zulip's urljoin with response.url)
    if (URL.canParse(embed.image, fetched.url.href)) embed.image = new URL(embed.image, fetched.url).href;
    else delete embed.image;
  }
  return embed;
}
