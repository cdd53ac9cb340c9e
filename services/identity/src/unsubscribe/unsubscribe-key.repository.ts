import { Schema, type Connection } from "mongoose";
import { isDuplicateKey, TenantRepository } from "@teamchat/shared";
import { newConfirmationKey } from "../invitations/access";

/**
 * A user's one-click unsubscribe key (Zulip's Confirmation of type
 * UNSUBSCRIBE, which never expires). One per user, reused by every mail:
 * Zulip makes one per mail, but any of them turns off any kind of mail.
 */
interface UnsubscribeKeyDoc {
  /** the key of `<realm url>/accounts/unsubscribe/<email type>/<key>` */
  _id: string;
  realmId: number;
  userId: number;
  createdAt: Date;
}

const unsubscribeKeySchema = new Schema<UnsubscribeKeyDoc>(
  {
    _id: { type: String, required: true },
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: "unsubscribe_keys", versionKey: false },
);
// the user's key when a mail is sent; a link's key is found by _id
unsubscribeKeySchema.index({ realmId: 1, userId: 1 }, { unique: true });

export class UnsubscribeKeyRepository extends TenantRepository<UnsubscribeKeyDoc> {
  constructor(conn: Connection) {
    super(conn.model<UnsubscribeKeyDoc>("UnsubscribeKey", unsubscribeKeySchema));
  }

  /** The user's key, made at the first mail that needs it. */
  async keyOf(realmId: number, userId: number): Promise<string> {
    const known = await this.findOne(realmId, { userId });
    if (known) return known._id;
    try {
      return (await this.insertOne({ _id: newConfirmationKey(), realmId, userId, createdAt: new Date() }))._id;
    } catch (err) {
      // another instance made it at the same time
      if (!isDuplicateKey(err)) throw err;
      return (await this.findOne(realmId, { userId }))!._id;
    }
  }

  /** The user a key of this organization belongs to, or null. */
  async userOf(realmId: number, key: string): Promise<number | null> {
    return (await this.findOne(realmId, { _id: key }))?.userId ?? null;
  }
}
