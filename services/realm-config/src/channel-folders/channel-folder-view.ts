import type { realmConfig } from "@teamchat/shared";
import type { ChannelFolderDoc } from "./channel-folder.schema";

/** Zulip's get_channel_folder_dict. */
export const channelFolderView = (f: ChannelFolderDoc): realmConfig.ChannelFolder => ({
  id: f.folderId,
  name: f.name,
  description: f.description,
  rendered_description: f.renderedDescription,
  order: f.order,
  date_created: Math.floor(f.dateCreated.getTime() / 1000),
  creator_id: f.creatorId,
  is_archived: f.isArchived,
});
