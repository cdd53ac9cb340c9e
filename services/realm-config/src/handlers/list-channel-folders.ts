import { realmConfig, requireRealm, type Handler } from "@teamchat/shared";
import { channelFolderView } from "../channel-folders/channel-folder-view";
import type { ChannelFolderRepository } from "../channel-folders/channel-folder.repository";

/** GET /channel_folders: any user of the organization; by `order`, as Zulip lists them; archived folders only when asked. */
export const listChannelFoldersHandler =
  ({ folders }: { folders: ChannelFolderRepository }): Handler<typeof realmConfig.listChannelFolders> =>
  async ({ include_archived }, ctx) => ({
    channel_folders: (await folders.inDisplayOrder(requireRealm(ctx).id, { includeArchived: include_archived })).map(
      channelFolderView,
    ),
  });
