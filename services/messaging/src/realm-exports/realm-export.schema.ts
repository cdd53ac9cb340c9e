import { Schema } from "mongoose";
import type { Actor, RealmRef } from "@teamchat/shared";

/** Zulip's RealmExport.status values. */
export type RealmExportStatus = "requested" | "started" | "succeeded" | "failed" | "deleted";

/** Zulip's RealmExport row: who asked, what kind, where the tarball is once done. */
export interface RealmExportDoc {
  realmId: number;
  exportId: number;
  /** 1 public, 2 full with members' consent */
  type: number;
  /** the organization and the requester, as the job acts for them */
  realm: RealmRef;
  actor: Actor;
  status: RealmExportStatus;
  dateRequested: number;
  dateFailed: number | null;
  dateDeleted: number | null;
  /** how many instances have taken the job (a second one finishes what a dead one started) */
  attempts: number;
  /** the tarball's chunks in the FileStore, of the attempt under way or done */
  fileId: string | null;
  /** where GET /user_uploads serves it once done: `<realm id>/exports/<random>/zulip-export-<random>.tar.gz` */
  pathId: string | null;
  size: number;
}

export const realmExportSchema = new Schema<RealmExportDoc>(
  {
    realmId: { type: Number, required: true },
    exportId: { type: Number, required: true },
    type: { type: Number, required: true },
    realm: { type: Schema.Types.Mixed, required: true },
    actor: { type: Schema.Types.Mixed, required: true },
    status: { type: String, required: true },
    dateRequested: { type: Number, required: true },
    dateFailed: { type: Number, default: null },
    dateDeleted: { type: Number, default: null },
    attempts: { type: Number, default: 0 },
    fileId: { type: String, default: null },
    pathId: { type: String, default: null },
    size: { type: Number, default: 0 },
  },
  { collection: "realm_exports", versionKey: false },
);
// byId and the organization's list, in id order
realmExportSchema.index({ realmId: 1, exportId: 1 }, { unique: true });
// GET /user_uploads/<path id> of a finished export
realmExportSchema.index({ realmId: 1, pathId: 1 });
