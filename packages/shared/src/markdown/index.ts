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
export { channelLink, encodeChannel, encodeHashComponent, messageUrl, silentMention, topicLink } from "./link-syntax";
export { renderMarkdown, renderWithMentions } from "./render";
