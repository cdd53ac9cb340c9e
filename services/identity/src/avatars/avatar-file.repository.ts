import { Schema, type Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";

/** One image of an uploaded avatar: its original, or one of its resized PNGs, by the name it is served under. */
export interface AvatarFileDoc {
  realmId: number;
  /** the images' common name (UserDoc.avatarPath) */
  path: string;
  /** `<path>.png`, `<path>-medium.png` or `<path>.original`, as Zulip names them */
  fileName: string;
  /** its chunks in identity's FileStore */
  fileId: string;
  contentType: string;
  size: number;
}

const avatarFileSchema = new Schema<AvatarFileDoc>(
  {
    realmId: { type: Number, required: true },
    path: { type: String, required: true },
    fileName: { type: String, required: true },
    fileId: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
  },
  { collection: "avatar_files", versionKey: false },
);
// byFileName (every /user_avatars/ request)
avatarFileSchema.index({ realmId: 1, fileName: 1 }, { unique: true });
// removeAll (a replaced or deleted avatar)
avatarFileSchema.index({ realmId: 1, path: 1 });

/** Where the images of uploaded avatars are (their bytes are in identity's FileStore). */
export class AvatarFileRepository extends TenantRepository<AvatarFileDoc> {
  constructor(conn: Connection) {
    super(conn.model<AvatarFileDoc>("AvatarFile", avatarFileSchema));
  }

  async add(files: AvatarFileDoc[]): Promise<void> {
    await this.insertMany(files);
  }

  byFileName(realmId: number, fileName: string): Promise<AvatarFileDoc | null> {
    return this.findOne(realmId, { fileName });
  }

  /** Forgets an avatar's images; returns their file ids, whose chunks the caller removes. */
  async removeAll(realmId: number, path: string): Promise<string[]> {
    const files = await this.find(realmId, { path });
    await this.deleteMany(realmId, { path });
    return files.map((f) => f.fileId);
  }
}
