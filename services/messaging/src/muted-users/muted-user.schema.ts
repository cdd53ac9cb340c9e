import { Schema } from "mongoose";

/** Zulip's MutedUser: `userId` muted `mutedUserId`. */
export interface MutedUserDoc {
  realmId: number;
  userId: number;
  mutedUserId: number;
  /** UNIX seconds (Zulip's date_muted) */
  timestamp: number;
  /** from IdAllocator: the order mutes are listed in (Zulip lists them by id) */
  muteId: number;
}

export const mutedUserSchema = new Schema<MutedUserDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    mutedUserId: { type: Number, required: true },
    timestamp: { type: Number, required: true },
    muteId: { type: Number, required: true },
  },
  { collection: "mutedusers", versionKey: false },
);
// MutedUserRepository.ofRealm (the realmId prefix), ofUser (realmId+userId) and remove; one row per pair, as
// Zulip's unique (user_profile, muted_user), so a second mute is "User already muted"
mutedUserSchema.index({ realmId: 1, userId: 1, mutedUserId: 1 }, { unique: true });
