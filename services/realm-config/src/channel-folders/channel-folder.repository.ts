import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { channelFolderSchema, type ChannelFolderDoc } from "./channel-folder.schema";

export type NewChannelFolder = Pick<ChannelFolderDoc, "name" | "description" | "renderedDescription" | "creatorId">;

/** What PATCH /channel_folders/{id} may change; absent fields stay as they are. */
export type ChannelFolderChanges = Partial<
  Pick<ChannelFolderDoc, "name" | "description" | "renderedDescription" | "isArchived">
>;

/** The unique-name key: the lowercased name while active; archived folders get one no name can equal (names are printable). */
const activeNameKey = (folderId: number, name: string, isArchived: boolean) =>
  isArchived ? `\u0000archived:${folderId}` : name.toLowerCase();

export class ChannelFolderRepository extends TenantRepository<ChannelFolderDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelFolderDoc>("ChannelFolder", channelFolderSchema));
  }

  /** The organization's folders as clients show them (by `order`, then id); archived ones only when asked for. */
  inDisplayOrder(realmId: number, { includeArchived }: { includeArchived: boolean }): Promise<ChannelFolderDoc[]> {
    return this.find(realmId, includeArchived ? {} : { isArchived: false }, { sort: { order: 1, folderId: 1 } });
  }

  byId(realmId: number, folderId: number): Promise<ChannelFolderDoc | null> {
    return this.findOne(realmId, { folderId });
  }

  /** Whether an active folder has this name, case-insensitively (Zulip's check_channel_folder_name). */
  async activeNameTaken(realmId: number, name: string): Promise<boolean> {
    return (await this.findOne(realmId, { activeNameKey: name.toLowerCase() })) !== null;
  }

  /** New folders go last (Zulip sets order = id); an active name taken fails with the unique index's error. */
  async insert(realmId: number, folder: NewChannelFolder): Promise<ChannelFolderDoc> {
    const folderId = await this.ids.next("channel_folder");
    return this.insertOne({
      ...folder,
      realmId,
      folderId,
      activeNameKey: activeNameKey(folderId, folder.name, false),
      order: folderId,
      dateCreated: new Date(),
      isArchived: false,
    });
  }

  /**
   * Applies the changes to `folder` (as read) in one write and returns the folder after it; a
   * name or an unarchiving that collides with an active folder's name fails with the unique
   * index's error and changes nothing.
   */
  async update(realmId: number, folder: ChannelFolderDoc, changes: ChannelFolderChanges): Promise<ChannelFolderDoc> {
    const name = changes.name ?? folder.name;
    const isArchived = changes.isArchived ?? folder.isArchived;
    const updated = await this.findOneAndUpdate(
      realmId,
      { folderId: folder.folderId },
      { $set: { ...changes, activeNameKey: activeNameKey(folder.folderId, name, isArchived) } },
    );
    return updated!;
  }

  /** Sets each folder's `order` (folders absent from the map keep theirs). */
  async setOrder(realmId: number, orderById: ReadonlyMap<number, number>): Promise<void> {
    await Promise.all(
      [...orderById].map(([folderId, order]) => this.updateOne(realmId, { folderId }, { $set: { order } })),
    );
  }
}
