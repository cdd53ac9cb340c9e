import { isAdmin, isDuplicateKey, mustBeAdmin, requireUser, renderMarkdown } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { channelFolderView } from "../channel-folders/channel-folder-view";
import { checkChannelFolderName, nameInUse, publishChannelFolderEvent } from "../channel-folders/channel-folder-rules";
import type { ChannelFolderRepository } from "../channel-folders/channel-folder.repository";

/** POST /channel_folders/create (Zulip's create_channel_folder + check_channel_folder_name). */
export const createChannelFolderHandler =
  ({
    folders,
    events,
  }: {
    folders: ChannelFolderRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.createChannelFolder> =>
  async ({ name, description }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    checkChannelFolderName(name);
    let folder;
    try {
      folder = await folders.insert(realm.id, {
        name,
        description,
        renderedDescription: renderMarkdown(description),
        creatorId: actor.userId,
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw nameInUse();
      throw err;
    }
    publishChannelFolderEvent(
      events,
      realm.id,
      { type: "channel_folder", op: "add", channel_folder: channelFolderView(folder) },
      ctx.requestId,
    );
    return { channel_folder_id: folder.folderId };
  };
