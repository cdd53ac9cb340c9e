import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository, type AvatarSource } from "@teamchat/shared";
import type { Settings } from "./settings";
import { userSchema, type UserDoc } from "./user.schema";

export type NewUser = Omit<
  UserDoc,
  "userId" | "isActive" | "isSystemBot" | "avatarVersion" | "settings" | "profileData"
> &
  Partial<Pick<UserDoc, "isSystemBot" | "settings" | "profileData">>;

/** What a write may change of a user; `settings` are merged into the stored ones (users store only what they changed). */
export type UserChanges = Partial<
  Pick<
    UserDoc,
    | "fullName"
    | "role"
    | "deliveryEmail"
    | "timezone"
    | "passwordHash"
    | "profileData"
    | "isActive"
    | "botOwnerId"
    | "botProfile"
    | "status"
  >
> & { settings?: Partial<Settings> };

/** An avatar as a user's record holds it: Gravatar's, or uploaded (its images' common name). */
export type NewAvatar = { source: "U"; path: string } | { source: Exclude<AvatarSource, "U"> };

export class UserRepository extends TenantRepository<UserDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<UserDoc>("User", userSchema));
  }

  /** Every user of the organization, in id order (Zulip lists users so); UserDirectory keeps them in memory. */
  all(realmId: number): Promise<UserDoc[]> {
    return this.find(realmId, {}, { sort: { userId: 1 } });
  }

  /** Applies the changes and returns the user as it is after them, or null when there is no such user. */
  change(realmId: number, userId: number, { settings = {}, ...fields }: UserChanges): Promise<UserDoc | null> {
    const settingPaths = Object.fromEntries(
      Object.entries(settings).map(([name, value]) => [`settings.${name}`, value]),
    );
    return this.findOneAndUpdate(realmId, { userId }, { $set: { ...fields, ...settingPaths } });
  }

  /**
   * Zulip's do_change_avatar_fields: the avatar's source (and an uploaded one's
   * images), its version one more, in one write. The user as before it, or null
   * when there is no such user.
   */
  changeAvatar(realmId: number, userId: number, avatar: NewAvatar): Promise<UserDoc | null> {
    const change =
      avatar.source === "U"
        ? { $set: { avatarSource: avatar.source, avatarPath: avatar.path } }
        : { $set: { avatarSource: avatar.source }, $unset: { avatarPath: "" } };
    return this.findOneAndUpdate(realmId, { userId }, { ...change, $inc: { avatarVersion: 1 } }, "before");
  }

  /**
   * Removes users' values of a custom profile field: all of them, or those
   * naming one of `choices` (list fields). Returns the users who had one.
   */
  async dropProfileValues(realmId: number, fieldId: number, choices: string[] | null): Promise<number[]> {
    const path = `profileData.${fieldId}`;
    const holding = choices === null ? { [path]: { $exists: true } } : { [`${path}.value`]: { $in: choices } };
    const holders = (await this.find(realmId, holding)).map((u) => u.userId);
    if (holders.length) await this.updateMany(realmId, { userId: { $in: holders } }, { $unset: { [path]: "" } });
    return holders;
  }

  /** Inserts with a fresh id; a duplicate address fails with the unique index's error. */
  async insert(user: NewUser): Promise<UserDoc> {
    const userId = await this.ids.next("user");
    return this.insertOne({
      isSystemBot: false,
      settings: {},
      profileData: {},
      ...user,
      deliveryEmail: user.deliveryEmail.toLowerCase(),
      userId,
      isActive: true,
      avatarVersion: 1,
    });
  }
}
