import { Schema } from "mongoose";
import type { RoleValue } from "@teamchat/shared";

/**
 * An invitation: Zulip's PreregistrationUser (an email invitation, `email`
 * set) or MultiuseInvite (a reusable link, `email` null), with its
 * Confirmation (`key`, `expiresAt`). The two kinds are numbered separately,
 * as Zulip's tables are.
 */
export interface InvitationDoc {
  realmId: number;
  inviteId: number;
  isMultiuse: boolean;
  /** the invitee's address as given (email invitations), else null */
  email: string | null;
  /** lowercased `email`: the invitations revoked when that address joins */
  emailKey: string | null;
  referrerId: number;
  invitedAs: RoleValue;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  /** only administrators may set it; null = the organization's default */
  welcomeMessageCustomText: string | null;
  /** the confirmation key of the link `<realm url>/join/<key>/` */
  key: string;
  invitedAt: Date;
  /** null = never expires */
  expiresAt: Date | null;
  /** Zulip's confirmation statuses: used (email invitations) and revoked end an invitation */
  status: "active" | "used" | "revoked";
  /** when its mail was sent, the first time and at each resend (Zulip's invites_sent::day count) */
  lastSentAt: Date | null;
  sentCount: number;
}

export const invitationSchema = new Schema<InvitationDoc>(
  {
    realmId: { type: Number, required: true },
    inviteId: { type: Number, required: true },
    isMultiuse: { type: Boolean, required: true },
    email: { type: String, default: null },
    emailKey: { type: String, default: null },
    referrerId: { type: Number, required: true },
    invitedAs: { type: Number, required: true },
    streamIds: { type: [Number], default: [] },
    groupIds: { type: [Number], default: [] },
    includeRealmDefaultSubscriptions: { type: Boolean, default: false },
    notifyReferrerOnJoin: { type: Boolean, default: true },
    welcomeMessageCustomText: { type: String, default: null },
    key: { type: String, required: true },
    invitedAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
    status: { type: String, required: true },
    lastSentAt: { type: Date, default: null },
    sentCount: { type: Number, default: 0 },
  },
  { collection: "invitations", versionKey: false, minimize: false },
);
// byId, markUsed, revoke: one invitation per kind and id
invitationSchema.index({ realmId: 1, isMultiuse: 1, inviteId: 1 }, { unique: true });
// byKey: accepting a link
invitationSchema.index({ realmId: 1, key: 1 }, { unique: true });
// sentSince: the daily invitation limit
invitationSchema.index({ realmId: 1, lastSentAt: 1 });
// active (GET /invites, revoking an address's other invitations): what is not used up or revoked
invitationSchema.index({ realmId: 1, status: 1 });
