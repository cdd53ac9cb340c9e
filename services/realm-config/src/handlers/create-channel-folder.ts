import { badRequest, isAdmin, isDuplicateKey, mustBeAdmin, realmConfigEvents, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { channelFolderView } from "../channel-folders/channel-folder-view";
import type { ChannelFolderRepository } from "../channel-folders/channel-folder.repository";
import { renderMarkdown } from "../markdown";

// Zulip's is_character_printable: control characters, surrogates and the 66 Unicode non-characters are refused.
const NOT_PRINTABLE =
  /[\p{Cc}\p{Cs}\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

/** POST /channel_folders/create (Zulip's create_channel_folder + check_channel_folder_name). */
export const createChannelFolderHandler =
  (
    folders: ChannelFolderRepository,
    events: EventPublisher<"realm-config">,
  ): Handler<typeof realmConfig.createChannelFolder> =>
  async ({ name, description }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!name.trim()) throw badRequest("Channel folder name can't be empty.");
    // Positions are 1-based code points, as Python counts them.
    const position = [...name].findIndex((ch) => NOT_PRINTABLE.test(ch));
    if (position >= 0) throw badRequest(`Invalid character in channel folder name, at position ${position + 1}.`);
    let folder;
    try {
      folder = await folders.insert(realm.id, {
        name,
        description,
        renderedDescription: renderMarkdown(description),
        creatorId: actor.userId,
      });
    } catch (err) {
      if (isDuplicateKey(err)) throw badRequest("Channel folder name already in use");
      throw err;
    }
    events.publish(
      realmConfigEvents.channelFolder,
      {
        realmId: realm.id,
        userIds: "all",
        event: { type: "channel_folder", op: "add", channel_folder: channelFolderView(folder) },
      },
      ctx.requestId,
    );
    return { channel_folder_id: folder.folderId };
  };
