import type { Connection } from "mongoose";
import { IdAllocator, RealmRepository, type realmConfig } from "@teamchat/shared";
import { channelFolderSchema, type ChannelFolderDoc } from "./channel-folder.schema";

export type NewChannelFolder = Pick<
  ChannelFolderDoc,
  "realmId" | "name" | "description" | "renderedDescription" | "creatorId"
>;

export class ChannelFolderRepository extends RealmRepository<ChannelFolderDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<ChannelFolderDoc>("ChannelFolder", channelFolderSchema));
  }

  list(realmId: number, includeArchived: boolean): Promise<ChannelFolderDoc[]> {
    const filter = includeArchived ? { realmId } : { realmId, isArchived: false };
    return this.model.find(filter).sort({ folderId: 1 }).lean<ChannelFolderDoc[]>().exec();
  }

  /** New folders go last (Zulip sets order = id); an active name taken fails with the unique index's error. */
  async insert(folder: NewChannelFolder): Promise<ChannelFolderDoc> {
    const folderId = await this.ids.next("channel_folder");
    const doc: ChannelFolderDoc = {
      ...folder,
      folderId,
      activeNameKey: folder.name.toLowerCase(),
      order: folderId,
      dateCreated: new Date(),
      isArchived: false,
    };
    await this.model.create(doc);
    return doc;
  }
}

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
