import { Schema } from "mongoose";
import type { ChannelGroupSetting, GroupSettingValue, messaging } from "@teamchat/shared";

export interface ChannelDoc {
  realmId: number;
  streamId: number;
  /** Zulip's recipient id of the channel (messages carry it) */
  recipientId: number;
  name: string;
  /** lowercased name: channel names are unique case-insensitively, as in Zulip */
  nameKey: string;
  description: string;
  renderedDescription: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  /** null = the organization's default */
  messageRetentionDays: number | null;
  topicsPolicy: messaging.Channel["topics_policy"];
  folderId: number | null;
  isDefault: boolean;
  isArchived: boolean;
  dateCreated: number;
  creatorId: number | null;
  firstMessageId: number | null;
  /** can_*_group group-setting values as given at creation */
  groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>>;
}

export const channelSchema = new Schema<ChannelDoc>(
  {
    realmId: { type: Number, required: true },
    streamId: { type: Number, required: true },
    recipientId: { type: Number, required: true },
    name: { type: String, required: true },
    nameKey: { type: String, required: true },
    description: { type: String, default: "" },
    renderedDescription: { type: String, default: "" },
    inviteOnly: { type: Boolean, default: false },
    isWebPublic: { type: Boolean, default: false },
    historyPublicToSubscribers: { type: Boolean, default: true },
    messageRetentionDays: { type: Number, default: null },
    topicsPolicy: { type: String, default: "inherit" },
    folderId: { type: Number, default: null },
    isDefault: { type: Boolean, default: false },
    isArchived: { type: Boolean, default: false },
    dateCreated: { type: Number, required: true },
    creatorId: { type: Number, default: null },
    firstMessageId: { type: Number, default: null },
    groupSettings: { type: Schema.Types.Mixed, default: {} },
  },
  { collection: "channels", versionKey: false, minimize: false },
);
// ChannelRepository.all (ChannelDirectory's load) reads the realmId prefix; setFirstMessage: one channel by id
channelSchema.index({ realmId: 1, streamId: 1 }, { unique: true });
// one name per organization (insert's duplicate check)
channelSchema.index({ realmId: 1, nameKey: 1 }, { unique: true });
