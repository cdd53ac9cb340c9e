import {
  badRequest,
  requireUser,
  type Actor,
  type Handler,
  type messaging,
  type realmConfig,
  type GroupMembership,
} from "@teamchat/shared";
import type { ChannelDoc } from "../channels/channel.schema";
import { groupSetting } from "../channels/channel-view";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { deleteMessages, type DeleteDeps } from "../messages/delete-messages";
import { accessMessage } from "../messages/message-access";
import type { MessageDoc } from "../messages/message.schema";

const cannotDelete = () => badRequest("You don't have permission to delete this message");

/**
 * Zulip's validate_can_delete_message: anyone in the organization's or the
 * channel's can_delete_any_message_group; otherwise only the sender, when in
 * the organization's or the channel's can_delete_own_message_group, and
 * within message_content_delete_limit_seconds.
 */
function checkCanDelete(
  groups: GroupMembership,
  settings: realmConfig.RealmSettings,
  actor: Actor,
  message: MessageDoc,
  channel: ChannelDoc | null,
): void {
  const inGroup = (setting: "can_delete_any_message_group" | "can_delete_own_message_group") =>
    groups.includes(settings[setting], actor) ||
    (channel !== null && groups.includes(groupSetting(channel, setting), actor));
  if (inGroup("can_delete_any_message_group")) return;
  if (message.senderId !== actor.userId) throw cannotDelete();
  if (!inGroup("can_delete_own_message_group")) throw cannotDelete();
  const limit = settings.message_content_delete_limit_seconds;
  if (limit !== null && Date.now() / 1000 - message.timestamp > limit) {
    throw badRequest("The time limit for deleting this message has passed");
  }
}

/** DELETE /messages/{message_id}. */
export const deleteMessageHandler =
  (deps: DeleteDeps & { settings: RealmSettingsSource }): Handler<typeof messaging.deleteMessage> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const [settings, message] = await Promise.all([
      deps.settings.get(ctx),
      accessMessage(deps, realm.id, actor, p.message_id, ctx),
    ]);
    const channel = message.streamId === null ? null : await deps.channels.byId(realm.id, message.streamId);
    checkCanDelete(await deps.userGroups.get(ctx), settings, actor, message, channel);
    // a concurrent delete got there first
    if (!(await deleteMessages(deps, ctx, realm.id, [message]))) throw badRequest("Message already deleted");
    return {};
  };
