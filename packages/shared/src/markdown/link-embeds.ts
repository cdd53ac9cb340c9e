import type { StateCore, Token } from "markdown-it";
import { renderEnv, type LinkEmbed } from "./context";
import { escapeAttribute, escapeText } from "./escape";
import { isImageUrl, thumbnailUrl } from "./urls";

/** Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE: a message linking more URLs than this gets no previews. */
const PREVIEW_LIMIT = 24;

/** The link URLs of the rendering, in order, each with whether it is inside a quote. */
function linksOf(tokens: Token[], inQuote: boolean): Array<{ url: string; quoted: boolean }> {
  let quoteDepth = 0;
  return tokens.flatMap((token) => {
    if (token.type === "blockquote_open") quoteDepth++;
    if (token.type === "blockquote_close") quoteDepth--;
    if (token.type !== "inline") return [];
    return (token.children ?? [])
      .filter((child) => child.type === "link_open")
      .map((child) => ({ url: String(child.attrGet("href") ?? ""), quoted: inQuote || quoteDepth > 0 }));
  });
}

/**
 * Zulip's add_embed: the preview card of a web page, its image served through
 * the server's own proxy (as Zulip's get_camo_url), appended to the message.
 */
function embedHtml(url: string, embed: LinkEmbed): string {
  const image = thumbnailUrl(embed.image!, "full").replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ");
  const title =
    embed.title === undefined
      ? ""
      : `<div class="message_embed_title"><a href="${escapeAttribute(url)}" title="${escapeAttribute(embed.title)}">${escapeText(embed.title)}</a></div>`;
  const description =
    embed.description === undefined
      ? ""
      : `<div class="message_embed_description">${escapeText(embed.description)}</div>`;
  return `<div class="message_embed"><a class="message_embed_image" href="${escapeAttribute(url)}" style="${escapeAttribute(`background-image: url("${image}")`)}"></a><div class="data-container">${title}${description}</div></div>`;
}

/**
 * Zulip's InlineInterestingLinkProcessor for web pages: each outside page a
 * message links (outside quotes, not an image, not in the organization) gets
 * the preview fetched for it, when link previews are on for the message. A
 * URL not fetched yet is listed in `linksForPreview` (Zulip's
 * links_for_preview): the message is rendered again once it is.
 */
export function linkEmbeds(state: StateCore): void {
  const env = renderEnv(state.env);
  if (!env.linkPreviews) return;
  const previewable = [
    ...new Set(
      linksOf(state.tokens, env.inQuote === true)
        .filter((link) => !link.quoted)
        .map((link) => link.url),
    ),
  ];
  if (previewable.length > PREVIEW_LIMIT) return;
  const cards: string[] = [];
  for (const url of previewable) {
    // relative links are the organization's own; images have their own preview
    if (!/^https?:\/\//i.test(url) || (env.imagePreviews && isImageUrl(url))) continue;
    const embed = env.linkEmbeds?.get(url);
    if (embed === undefined) env.linksForPreview.push(url);
    else if (embed?.image !== undefined) cards.push(embedHtml(url, embed));
  }
  if (cards.length === 0) return;
  const html = new state.Token("html_block", "", 0);
  html.content = cards.map((card) => `${card}\n`).join("");
  state.tokens.push(html);
}
