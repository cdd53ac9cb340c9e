import type { GroupSettingValue } from "../contracts/common";
import type { RealmEmojiMap } from "../contracts/realm-config/emoji";
import type { parseUriTemplate } from "../domain/linkifiers";

/** A linkifier ready to run: its pattern with Zulip's boundaries, and its parsed URL template. */
export interface CompiledLinkifier {
  regex: RegExp;
  template: NonNullable<ReturnType<typeof parseUriTemplate>>;
}

/** A user a message may mention. */
export interface MentionableUser {
  user_id: number;
  full_name: string;
  /** a deactivated user is mentioned silently (Zulip's UserMentionPattern) */
  is_active?: boolean;
}

/** Who a message may mention: the organization's users, looked up by id and by full name. */
export interface MentionTargets {
  byId: Map<number, MentionableUser>;
  /** lowercased full name → users with it (a name two users share mentions nobody without |id) */
  byName: Map<string, MentionableUser[]>;
}

export function mentionTargets(users: MentionableUser[]): MentionTargets {
  const byName = new Map<string, MentionableUser[]>();
  for (const u of users) byName.set(u.full_name.toLowerCase(), [...(byName.get(u.full_name.toLowerCase()) ?? []), u]);
  return { byId: new Map(users.map((u) => [u.user_id, u])), byName };
}

/** A user group a message may mention with `@*name*`. */
export interface MentionableGroup {
  id: number;
  name: string;
  deactivated: boolean;
  /** who may mention it (Zulip's can_mention_group) */
  canMention: GroupSettingValue;
}

/** What Zulip's url_preview found on a linked page (its UrlEmbedData): a page without an image gets no card. */
export interface LinkEmbed {
  title?: string;
  description?: string;
  /** the page's image, absolute */
  image?: string;
}

/**
 * What a rendering depends on besides the text (Zulip's DbData): every
 * rendering of a message — sending, editing, scheduling, POST /messages/render
 * — is given the same, so each gives the same HTML. What is missing renders as
 * text (a mention of nobody, a link to no channel).
 */
export interface RenderContext {
  mentionTargets?: MentionTargets;
  /** Zulip's MentionData.get_user_group: the organization's user groups by lowercased name */
  userGroups?: ReadonlyMap<string, MentionableGroup>;
  /** Zulip's stream_names: the organization's channels' ids by exact name, for `#**channel**` links */
  channels?: ReadonlyMap<string, number>;
  linkifiers?: CompiledLinkifier[];
  /** the organization's custom emoji by id (deactivated ones render as text) */
  realmEmoji?: RealmEmojiMap;
  /** the sender's translate_emoticons setting: `:)` and the like become emoji */
  translateEmoticons?: boolean;
  /** the organization's URL: links into it become in-app links */
  realmUrl?: string;
  /** the organization's inline_image_preview: linked images get previews (descriptions render without, as Zulip's no_previews) */
  imagePreviews?: boolean;
  /**
   * Zulip's url_embed_preview_enabled for this message: the server's and the
   * organization's inline_url_embed_preview, and a sender who is not a bot
   */
  linkPreviews?: boolean;
  /** the previews fetched for the message's links (Zulip's url_embed_data); null: fetched, nothing to show */
  linkEmbeds?: ReadonlyMap<string, LinkEmbed | null>;
  /** the organization's default_code_block_language: the language of a fenced code block that names none */
  defaultCodeBlockLanguage?: string;
}

/** Whom a message's rendering notifies (Zulip's rendering_result): mentions that are not silent, outside quotes. */
export interface RenderedMentions {
  userIds: Set<number>;
  groupIds: Set<number>;
  /** a channel wildcard: @**all**, @**everyone**, @**channel** or @**stream** (Zulip's mentions_stream_wildcard) */
  streamWildcard: boolean;
  /** @**topic**, which notifies only the topic's participants (Zulip's mentions_topic_wildcard) */
  topicWildcard: boolean;
}

/** The markdown-it environment of one rendering: the context, and what the rendering itself keeps track of. */
export interface RenderEnv extends RenderContext {
  [key: string | symbol]: unknown;
  /** inside a quote: no inline image previews (Zulip's has_blockquote_ancestor) */
  inQuote?: boolean;
  /** image URLs already previewed in this message: each is previewed once */
  previewed: Set<string>;
  mentions: RenderedMentions;
  /** the links whose previews are not fetched yet (Zulip's links_for_preview) */
  linksForPreview: string[];
}

/** The environment markdown-it hands the rules back (renderMarkdown gives every rendering one). */
export const renderEnv = (env: unknown): RenderEnv => env as RenderEnv;
