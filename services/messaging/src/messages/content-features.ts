/** What has:link, has:image and has:attachment test (Zulip's Message.has_link, has_image, has_attachment). */
export interface ContentFeatures {
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
}

const LINK = /<a\s[^>]*\bhref\s*=/i;
const IMAGE = /<[a-z][^>]*\bclass\s*=\s*"[^"]*\b(?:message_inline_image|inline-image)\b/i;
const UPLOAD = /<(?:a\s[^>]*\bhref|img\s[^>]*\bsrc|audio\s[^>]*\bsrc|video\s[^>]*\bsrc)\s*=\s*"\/user_uploads\//i;

/**
 * The has: features of a message's rendered HTML, as Zulip's message_parser
 * decides them: any link, an inline image preview, a link to (or preview of)
 * an uploaded file. Stored with the message when it is sent and re-decided
 * when an edit re-renders it.
 */
export const contentFeatures = (renderedContent: string): ContentFeatures => ({
  hasLink: LINK.test(renderedContent),
  hasImage: IMAGE.test(renderedContent),
  hasAttachment: UPLOAD.test(renderedContent),
});
