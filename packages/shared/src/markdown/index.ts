export {
  mentionTargets,
  type MentionTargets,
  type MentionableGroup,
  type RenderContext,
  type RenderedMentions,
  type CompiledLinkifier,
  type LinkEmbed,
} from "./context";
export { compileLinkifiers, topicLinks } from "./linkifiers";
export {
  channelLink,
  directMessageUrl,
  encodeChannel,
  encodeHashComponent,
  messageLink,
  messageUrl,
  silentMention,
  topicLink,
} from "./link-syntax";
export { renderMarkdown, renderWithMentions } from "./render";
export { escapeAttribute, escapeHtml, escapeText } from "./escape";
