import { randomBytes } from "node:crypto";
import { Schema, type Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";

/** How long a temporary upload URL works (Zulip's generate_unauthed_file_access_url: 60 s). */
export const UPLOAD_TOKEN_SECONDS = 60;

interface UploadTokenDoc {
  realmId: number;
  token: string;
  pathId: string;
  expiresAt: Date;
}

const uploadTokenSchema = new Schema<UploadTokenDoc>(
  {
    realmId: { type: Number, required: true },
    token: { type: String, required: true },
    pathId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: "upload_tokens", versionKey: false },
);
// pathOf: one token each
uploadTokenSchema.index({ realmId: 1, token: 1 }, { unique: true });

/**
 * Tokens of temporary upload URLs, kept in the database so that any instance
 * answers them (Zulip signs them with its secret key; there is none here).
 */
export class UploadTokenRepository extends TenantRepository<UploadTokenDoc> {
  constructor(conn: Connection) {
    super(conn.model<UploadTokenDoc>("UploadToken", uploadTokenSchema));
  }

  async issue(realmId: number, pathId: string): Promise<string> {
    const token = randomBytes(24).toString("base64url");
    await this.deleteMany(realmId, { expiresAt: { $lt: new Date() } });
    await this.insertOne({ realmId, token, pathId, expiresAt: new Date(Date.now() + UPLOAD_TOKEN_SECONDS * 1000) });
    return token;
  }

  /** The path id a token is for, while it is valid. */
  async pathOf(realmId: number, token: string): Promise<string | null> {
    const found = await this.findOne(realmId, { token });
    return found && found.expiresAt.getTime() > Date.now() ? found.pathId : null;
  }
}
