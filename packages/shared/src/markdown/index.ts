export { mentionTargets, type MentionTargets, type MentionableGroup, type RenderContext } from "./context";
export { compileLinkifiers, topicLinks, type CompiledLinkifier } from "./linkifiers";
export { channelLink, encodeChannel, encodeHashComponent, messageUrl, silentMention, topicLink } from "./link-syntax";
export { renderMarkdown } from "./render";
