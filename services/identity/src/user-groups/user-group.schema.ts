import { Schema } from "mongoose";
import type { GroupSettingValue, UserGroupSetting } from "@teamchat/shared";

/**
 * A user-created group (Zulip's NamedUserGroup; system groups are not stored:
 * their ids are fixed and their members follow roles). Memberships are kept
 * on the group, as arrays changed with $addToSet / $pull. Anonymous
 * group-setting values are stored as given (Zulip makes an unnamed UserGroup).
 */
export interface UserGroupDoc {
  realmId: number;
  groupId: number;
  name: string;
  description: string;
  creatorId: number | null;
  dateCreated: Date;
  deactivated: boolean;
  /** direct members' user ids (deactivated users stay, as in Zulip, and are left out of what clients see) */
  members: number[];
  /** direct subgroups' ids (system or user-created) */
  subgroups: number[];
  settings: Record<UserGroupSetting, GroupSettingValue>;
}

export const userGroupSchema = new Schema<UserGroupDoc>(
  {
    realmId: { type: Number, required: true },
    groupId: { type: Number, required: true },
    name: { type: String, required: true },
    description: { type: String, default: "" },
    creatorId: { type: Number, default: null },
    dateCreated: { type: Date, required: true },
    deactivated: { type: Boolean, default: false },
    members: { type: [Number], default: [] },
    subgroups: { type: [Number], default: [] },
    settings: { type: Schema.Types.Mixed, required: true },
  },
  { collection: "user_groups", versionKey: false, minimize: false },
);
// all (every group of the organization, in id order), byId, and every change: one group per id
userGroupSchema.index({ realmId: 1, groupId: 1 }, { unique: true });
// insert, rename: "User group '...' already exists." (Zulip's unique (realm, name), deactivated groups included)
userGroupSchema.index({ realmId: 1, name: 1 }, { unique: true });
