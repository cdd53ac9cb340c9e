import { Schema } from "mongoose";

/** Zulip's ChannelFolder. */
export interface ChannelFolderDoc {
  realmId: number;
  folderId: number;
  name: string;
  /**
   * The name lowercased while the folder is active, a per-folder placeholder once
   * archived: a unique index on it is Zulip's "unique name among non-archived
   * folders" constraint.
   */
  activeNameKey: string;
  description: string;
  renderedDescription: string;
  /** Display position: the id at creation, the position in the list after PATCH /channel_folders. */
  order: number;
  dateCreated: Date;
  creatorId: number | null;
  isArchived: boolean;
}

export const channelFolderSchema = new Schema<ChannelFolderDoc>(
  {
    realmId: { type: Number, required: true },
    folderId: { type: Number, required: true },
    name: { type: String, required: true },
    activeNameKey: { type: String, required: true },
    description: { type: String, default: "" },
    renderedDescription: { type: String, default: "" },
    order: { type: Number, required: true },
    dateCreated: { type: Date, required: true },
    creatorId: { type: Number, default: null },
    isArchived: { type: Boolean, default: false },
  },
  { collection: "channel_folders", versionKey: false },
);
// byId, update, setOrder; insert: one folder per id
channelFolderSchema.index({ realmId: 1, folderId: 1 }, { unique: true });
// inDisplayOrder (GET /channel_folders, register's channel_folders)
channelFolderSchema.index({ realmId: 1, order: 1, folderId: 1 });
// insert, update: "Channel folder name already in use" among active folders; activeNameTaken
channelFolderSchema.index({ realmId: 1, activeNameKey: 1 }, { unique: true });
