import { badRequest, isAdmin, isDuplicateKey, mustBeAdmin, requireUser, renderMarkdown } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import {
  checkChannelFolderName,
  nameInUse,
  publishChannelFolderEvent,
  type ChannelFolderUpdateData,
} from "../channel-folders/channel-folder-rules";
import type { ChannelFolderChanges, ChannelFolderRepository } from "../channel-folders/channel-folder.repository";

/**
 * PATCH /channel_folders/{channel_folder_id} (Zulip's update_channel_folder): administrators
 * only; a field equal to the folder's is left alone. Zulip writes name, description and
 * is_archived one after another; here they are checked first and written together, so a
 * refused request changes nothing. The events are Zulip's: one per changed field, in that order.
 *
 * Not checked: Zulip refuses to archive a folder that channels are in ("You need to remove all
 * the channels from this folder to archive it."); channels and their folder_id belong to
 * messaging, which offers no way to ask yet.
 */
export const updateChannelFolderHandler =
  ({
    folders,
    events,
  }: {
    folders: ChannelFolderRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.updateChannelFolder> =>
  async ({ channel_folder_id, name, description, is_archived }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const folder = await folders.byId(realm.id, channel_folder_id);
    if (!folder) throw badRequest("Invalid channel folder ID");

    const changes: ChannelFolderChanges = {};
    if (name !== undefined && name !== folder.name) {
      checkChannelFolderName(name);
      // Zulip compares with every active folder, this one included: a change of case only is refused too.
      if (await folders.activeNameTaken(realm.id, name)) throw nameInUse();
      changes.name = name;
    }
    if (description !== undefined && description !== folder.description) {
      changes.description = description;
      changes.renderedDescription = renderMarkdown(description);
    }
    if (is_archived !== undefined && is_archived !== folder.isArchived) changes.isArchived = is_archived;
    if (Object.keys(changes).length === 0) return {};

    let updated;
    try {
      updated = await folders.update(realm.id, folder, changes);
    } catch (err) {
      // a folder of that name created meanwhile, or unarchiving while an active folder has its name
      if (isDuplicateKey(err)) throw nameInUse();
      throw err;
    }
    const publish = (data: ChannelFolderUpdateData) =>
      publishChannelFolderEvent(
        events,
        realm.id,
        { type: "channel_folder", op: "update", channel_folder_id, data },
        ctx.requestId,
      );
    if (changes.name !== undefined) publish({ name: updated.name });
    if (changes.description !== undefined)
      publish({ description: updated.description, rendered_description: updated.renderedDescription });
    if (changes.isArchived !== undefined) publish({ is_archived: updated.isArchived });
    return {};
  };
