import { Schema } from "mongoose";
import type { AvatarSource, ReactionType, RoleValue, identity } from "@teamchat/shared";

/** Email visibility values (Zulip's email_address_visibility). */
export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

export interface ProfileValue {
  value: string;
  rendered_value?: string;
}

/** What only bots have (Zulip's default_all_public_streams, its Service row and BotConfigData). */
export interface BotProfile {
  defaultAllPublicStreams: boolean;
  /** outgoing webhook (base URL, format, token) or embedded bot (service name); null for the other types */
  service: { name: string; baseUrl: string; interface: number; token: string } | null;
  /** embedded bots' configuration (Zulip's BotConfigData) */
  config: Record<string, string>;
}

/** The status the user set (Zulip's UserStatus row): "" where nothing is set; the emoji's three fields go together. */
export interface UserStatusDoc {
  text: string;
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
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
  /**
   * Zulip's system bots (Notification Bot): left out of the organization's user lists, never logged in as.
   * Absent on users stored before system bots existed.
   */
  isSystemBot?: boolean;
  botType: number | null;
  botOwnerId: number | null;
  /** bots made through POST /bots */
  botProfile?: BotProfile;
  dateJoined: Date;
  timezone: string;
  avatarVersion: number;
  /** Zulip's avatar_source; absent on users who never changed their avatar, whose avatar is Gravatar's */
  avatarSource?: AvatarSource;
  /** an uploaded avatar's images' common name (AvatarFileRepository), while avatarSource is "U" */
  avatarPath?: string;
  /** scrypt hash, or null for accounts that cannot log in with a password */
  passwordHash: string | null;
  /** organization permissions held personally (Zulip's can_create_users, can_change_user_emails) */
  canCreateUsers: boolean;
  canChangeUserEmails: boolean;
  /** per-user settings (PATCH /settings), keyed by Zulip's names */
  settings: Partial<identity.SettingValues>;
  /** custom profile field id → value, with its HTML for Markdown-capable field types (rendered at write, as Zulip) */
  profileData: Record<string, ProfileValue>;
  /** absent until the user first sets a status (POST /users/me/status) */
  status?: UserStatusDoc;
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
    botProfile: { type: Schema.Types.Mixed, default: undefined },
    dateJoined: { type: Date, required: true },
    timezone: { type: String, default: "" },
    avatarVersion: { type: Number, default: 1 },
    avatarSource: { type: String },
    avatarPath: { type: String },
    passwordHash: { type: String, default: null },
    canCreateUsers: { type: Boolean, default: false },
    canChangeUserEmails: { type: Boolean, default: false },
    settings: { type: Schema.Types.Mixed, default: {} },
    profileData: { type: Schema.Types.Mixed, default: {} },
    status: { type: Schema.Types.Mixed },
  },
  { collection: "users", versionKey: false, minimize: false },
);
// byId, byIds, all (every user in id order), change; activeOwnerCount scans the organization's users through it
userSchema.index({ realmId: 1, userId: 1 }, { unique: true });
// byEmail, byEmails (GET /users/{email}, fetch_api_key, duplicate checks); one address per organization
userSchema.index({ realmId: 1, deliveryEmail: 1 }, { unique: true });
