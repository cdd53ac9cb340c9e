import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { channelFolderSchema, type ChannelFolderDoc } from "./channel-folder.schema";

export type NewChannelFolder = Pick<ChannelFolderDoc, "name" | "description" | "renderedDescription" | "creatorId">;

export class ChannelFolderRepository extends TenantRepository<ChannelFolderDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelFolderDoc>("ChannelFolder", channelFolderSchema));
  }

  /** The organization's folders by id; archived ones only when asked for. */
  inIdOrder(realmId: number, { includeArchived }: { includeArchived: boolean }): Promise<ChannelFolderDoc[]> {
    return this.find(realmId, includeArchived ? {} : { isArchived: false }, { sort: { folderId: 1 } });
  }

  /** New folders go last (Zulip sets order = id); an active name taken fails with the unique index's error. */
  async insert(realmId: number, folder: NewChannelFolder): Promise<ChannelFolderDoc> {
    const folderId = await this.ids.next("channel_folder");
    return this.insertOne({
      ...folder,
      realmId,
      folderId,
      activeNameKey: folder.name.toLowerCase(),
      order: folderId,
      dateCreated: new Date(),
      isArchived: false,
    });
  }
}
