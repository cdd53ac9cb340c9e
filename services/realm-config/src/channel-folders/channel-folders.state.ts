import { provideState, realmConfig, requireRealm } from "@teamchat/shared";
import { channelFolderView } from "./channel-folder-view";
import type { ChannelFolderRepository } from "./channel-folder.repository";

/** register's channel_folders: archived ones too, as Zulip sends them to users (clients hide those themselves). */
export const channelFoldersState = (folders: ChannelFolderRepository) =>
  provideState(realmConfig.channelFoldersPart, async (_params, ctx) => ({
    channel_folders: (await folders.inDisplayOrder(requireRealm(ctx).id, { includeArchived: true })).map(
      channelFolderView,
    ),
  }));
