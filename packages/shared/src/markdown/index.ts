export {
  mentionTargets,
  type MentionTargets,
  type MentionableGroup,
  type RenderContext,
  type RenderedMentions,
} from "./context";
export { compileLinkifiers, topicLinks, type CompiledLinkifier } from "./linkifiers";
export { channelLink, encodeChannel, encodeHashComponent, messageUrl, silentMention, topicLink } from "./link-syntax";
export { renderMarkdown, renderWithMentions } from "./render";
