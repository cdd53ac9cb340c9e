import type { Connection, UpdateQuery } from "mongoose";
import { IdAllocator, RealmRepository } from "@teamchat/shared";
import { userSchema, type UserDoc } from "./user.schema";

export type NewUser = Omit<UserDoc, "userId" | "isActive" | "avatarVersion" | "settings" | "profileData"> &
  Partial<Pick<UserDoc, "settings" | "profileData">>;

export class UserRepository extends RealmRepository<UserDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<UserDoc>("User", userSchema));
  }

  byId(realmId: number, userId: number): Promise<UserDoc | null> {
    return this.findOne({ realmId, userId });
  }

  byEmail(realmId: number, email: string): Promise<UserDoc | null> {
    return this.findOne({ realmId, deliveryEmail: email.toLowerCase() });
  }

  byIds(realmId: number, userIds: number[]): Promise<UserDoc[]> {
    return this.model
      .find({ realmId, userId: { $in: userIds } })
      .sort({ userId: 1 })
      .lean<UserDoc[]>()
      .exec();
  }

  byEmails(realmId: number, emails: string[]): Promise<UserDoc[]> {
    const deliveryEmail = { $in: emails.map((e) => e.toLowerCase()) };
    return this.model.find({ realmId, deliveryEmail }).sort({ userId: 1 }).lean<UserDoc[]>().exec();
  }

  /** Every user of the organization, in id order (Zulip lists users so). */
  all(realmId: number): Promise<UserDoc[]> {
    return this.model.find({ realmId }).sort({ userId: 1 }).lean<UserDoc[]>().exec();
  }

  /** Applies the update and returns the user as it is after it. */
  update(realmId: number, userId: number, update: UpdateQuery<UserDoc>): Promise<UserDoc | null> {
    return this.model.findOneAndUpdate({ realmId, userId }, update, { returnDocument: "after" }).lean<UserDoc>().exec();
  }

  /** Inserts with a fresh id; a duplicate address fails with the unique index's error. */
  async insert(user: NewUser): Promise<UserDoc> {
    const userId = await this.ids.next("user");
    const doc: UserDoc = {
      settings: {},
      profileData: {},
      ...user,
      deliveryEmail: user.deliveryEmail.toLowerCase(),
      userId,
      isActive: true,
      avatarVersion: 1,
    };
    await this.model.create(doc);
    return doc;
  }
}
