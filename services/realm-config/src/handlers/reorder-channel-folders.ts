import { badRequest, isAdmin, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { publishChannelFolderEvent } from "../channel-folders/channel-folder-rules";
import type { ChannelFolderRepository } from "../channel-folders/channel-folder.repository";

/**
 * PATCH /channel_folders (Zulip's try_reorder_realm_channel_folders): each folder's `order`
 * becomes its position in the list. Every folder of the organization, archived ones
 * included, must be in it; as in Zulip, ids of no folder are ignored and a repeated id
 * takes its last position. The reorder event carries the list as given.
 */
export const reorderChannelFoldersHandler =
  ({
    folders,
    events,
  }: {
    folders: ChannelFolderRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.reorderChannelFolders> =>
  async ({ order }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const position = new Map(order.map((folderId, index) => [folderId, index]));
    const all = await folders.inDisplayOrder(realm.id, { includeArchived: true });
    if (all.some((f) => !position.has(f.folderId))) throw badRequest("Invalid order mapping.");
    await folders.setOrder(realm.id, new Map(all.map((f) => [f.folderId, position.get(f.folderId)!])));
    publishChannelFolderEvent(events, realm.id, { type: "channel_folder", op: "reorder", order }, ctx.requestId);
    return {};
  };
