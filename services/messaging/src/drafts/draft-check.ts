import {
  ZulipError,
  badRequest,
  type Actor,
  type HandlerContext,
  type messaging,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { accessChannelById } from "../channels/channel-access";
import type { UserDirectory } from "../users/user-directory";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { directRecipients } from "../messages/check-message";
import { normalizeContent, truncateTopic } from "../messages/message-content";
import type { DraftFields } from "./draft.repository";

/** What checking a draft uses: its channel and the access to it, its direct recipients, the content rules. */
export interface DraftCheckDeps {
  users: UserDirectory;
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  settings: RealmSettingsSource;
}

/**
 * Zulip's draft_endpoint: every /drafts operation is refused while the user
 * keeps drafts on their devices only (enable_drafts_synchronization off).
 */
export async function requireDraftsSynchronized(deps: { users: UserDirectory }, ctx: HandlerContext, actor: Actor) {
  const me = (await deps.users.byIds(ctx, actor.realmId, [actor.userId])).get(actor.userId);
  if (!me?.enable_drafts_synchronization) throw badRequest("User has disabled synchronizing drafts.");
}

/** Zulip's ResourceNotFoundError for another user's or a missing draft. */
export const draftNotFound = () => new ZulipError("BAD_REQUEST", "Draft does not exist", 404);

/**
 * Zulip's further_validated_draft_dict: content as a message's, a timestamp
 * not before 1970 (default now), a channel draft to exactly one channel the
 * user may read (topic truncated), a direct draft to existing users; a direct
 * draft to no one is unaddressed, as Zulip stores it without a recipient.
 */
export async function checkDraft(
  deps: DraftCheckDeps,
  ctx: HandlerContext,
  actor: Actor,
  draft: messaging.DraftInput,
): Promise<DraftFields> {
  const settings = await deps.settings.get(ctx);
  const content = normalizeContent(draft.content, settings);
  const lastEditTime = draft.timestamp ?? Date.now() / 1000;
  if (lastEditTime < 0) throw badRequest("Timestamp must not be negative.");
  const base = { content, lastEditTime };
  if (draft.type === "stream") {
    const topic = truncateTopic(draft.topic, settings);
    if (topic.includes("\0")) throw badRequest("Topic must not contain null bytes");
    if (draft.to.length !== 1) throw badRequest("Must specify exactly 1 channel ID for channel messages");
    await accessChannelById(deps, actor.realmId, actor, draft.to[0]!, ctx, "content");
    return { ...base, type: "stream", to: draft.to, topic };
  }
  if (draft.type === "private" && draft.to.length) {
    const participants = await directRecipients(deps, ctx, actor.realmId, actor, draft.to);
    const others = participants.filter((id) => id !== actor.userId);
    return { ...base, type: "private", to: others.length ? others : [actor.userId], topic: "" };
  }
  return { ...base, type: "", to: [], topic: "" };
}
