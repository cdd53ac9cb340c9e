import { Schema } from "mongoose";
import type { RoleValue, identity } from "@teamchat/shared";

/** Email visibility values (Zulip's email_address_visibility). */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

export interface ProfileValue {
  value: string;
  rendered_value?: string;
}

export interface UserDoc {
  realmId: number;
  userId: number;
  /** the real address, lowercased */
  deliveryEmail: string;
  fullName: string;
  role: RoleValue;
  isActive: boolean;
  isBot: boolean;
  /** Zulip's system bots (Notification Bot): left out of the organization's user lists, never logged in as */
  isSystemBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  dateJoined: Date;
  timezone: string;
  avatarVersion: number;
  /** scrypt hash, or null for accounts that cannot log in with a password */
  passwordHash: string | null;
  /** organization permissions held personally (Zulip's can_create_users, can_change_user_emails) */
  canCreateUsers: boolean;
  canChangeUserEmails: boolean;
  /** per-user settings (PATCH /settings), keyed by Zulip's names */
  settings: Partial<identity.SettingValues>;
  /** custom profile field id → value, with its HTML for Markdown-capable field types (rendered at write, as Zulip) */
  profileData: Record<string, ProfileValue>;
}

export const userSchema = new Schema<UserDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    deliveryEmail: { type: String, required: true },
    fullName: { type: String, required: true },
    role: { type: Number, required: true },
    isActive: { type: Boolean, default: true },
    isBot: { type: Boolean, default: false },
    isSystemBot: { type: Boolean, default: false },
    botType: { type: Number, default: null },
    botOwnerId: { type: Number, default: null },
    dateJoined: { type: Date, required: true },
    timezone: { type: String, default: "" },
    avatarVersion: { type: Number, default: 1 },
    passwordHash: { type: String, default: null },
    canCreateUsers: { type: Boolean, default: false },
    canChangeUserEmails: { type: Boolean, default: false },
    settings: { type: Schema.Types.Mixed, default: {} },
    profileData: { type: Schema.Types.Mixed, default: {} },
  },
  { collection: "users", versionKey: false, minimize: false },
);
// byId, byIds, all (every user in id order), change; activeOwnerCount scans the organization's users through it
userSchema.index({ realmId: 1, userId: 1 }, { unique: true });
// byEmail, byEmails (GET /users/{email}, fetch_api_key, duplicate checks); one address per organization
userSchema.index({ realmId: 1, deliveryEmail: 1 }, { unique: true });
