import type { Connection } from "mongoose";
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
