import {
  SYSTEM_GROUPS,
  badRequest,
  renderWithMentions,
  type CallContext,
  type LinkEmbed,
  type RealmEmojiSource,
  type RealmRef,
  type RenderedMentions,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { UserDirectory } from "../users/user-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import type { LinkifierSource } from "./linkifier-source";

/** What rendering a message reads: the organization's users, groups, channels, custom emoji, linkifiers and settings. */
export interface RenderDeps {
  settings: RealmSettingsSource;
  users: UserDirectory;
  userGroups: UserGroupMemberships;
  channels: ChannelDirectory;
  realmEmoji: RealmEmojiSource;
  linkifiers: LinkifierSource;
  /** the server's INLINE_URL_EMBED_PREVIEW: organizations may turn link previews on */
  linkPreviewsAllowed: boolean;
}

/**
 * Zulip's render_message_markdown: a message's HTML as its sender sends it
 * (their translate_emoticons setting applies), and whom it notifies.
 * Sending, editing, scheduling and POST /messages/render all render through
 * here, so a preview is what sending stores. Link previews (Zulip's
 * url_embed_preview_enabled) are for messages of human senders, once their
 * pages are fetched (`linkEmbeds`); until then their URLs are listed in
 * `linksForPreview`.
 */
export async function renderMessage(
  deps: RenderDeps,
  ctx: CallContext,
  realm: RealmRef,
  senderId: number,
  content: string,
  linkEmbeds?: ReadonlyMap<string, LinkEmbed | null>,
): Promise<{ html: string; mentions: RenderedMentions; linksForPreview: string[] }> {
  const [settings, mentionTargets, userGroups, channels, realmEmoji, linkifiers, senders] = await Promise.all([
    deps.settings.get(ctx),
    deps.users.mentionTargets(ctx, realm.id),
    deps.userGroups.byName(ctx),
    deps.channels.all(realm.id),
    deps.realmEmoji.get(ctx),
    deps.linkifiers.get(ctx),
    deps.users.byIds(ctx, realm.id, [senderId]),
  ]);
  return renderWithMentions(content, {
    mentionTargets,
    userGroups,
    // private channels are not linked: a link shows the channel's name and id to every reader
    channels: new Map(channels.filter((c) => !c.inviteOnly).map((c) => [c.name, c.streamId])),
    realmEmoji,
    linkifiers,
    translateEmoticons: senders.get(senderId)?.translate_emoticons === true,
    linkPreviews:
      deps.linkPreviewsAllowed && settings.inline_url_embed_preview && senders.get(senderId)?.is_bot === false,
    ...(linkEmbeds && { linkEmbeds }),
    realmUrl: realm.uri,
    imagePreviews: settings.inline_image_preview,
    defaultCodeBlockLanguage: settings.default_code_block_language,
  });
}

/**
 * Zulip's check_user_group_mention_allowed: a message may mention a group
 * (not silently) only if its sender is in the group's can_mention_group;
 * the server's own bots only groups everyone may mention.
 */
export async function checkGroupMentions(
  deps: Pick<RenderDeps, "users" | "userGroups">,
  ctx: CallContext,
  realm: RealmRef,
  senderId: number,
  mentions: RenderedMentions,
): Promise<void> {
  if (mentions.groupIds.size === 0) return;
  const [byName, membership, senders] = await Promise.all([
    deps.userGroups.byName(ctx),
    deps.userGroups.get(ctx),
    deps.users.byIds(ctx, realm.id, [senderId]),
  ]);
  const sender = senders.get(senderId);
  for (const group of byName.values()) {
    if (!mentions.groupIds.has(group.id) || group.canMention === SYSTEM_GROUPS["role:everyone"]) continue;
    const allowed =
      sender !== undefined &&
      !sender.is_system_bot &&
      membership.includes(group.canMention, { userId: sender.user_id, role: sender.role });
    if (!allowed) throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
  }
}
