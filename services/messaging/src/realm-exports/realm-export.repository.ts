import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { realmExportSchema, type RealmExportDoc } from "./realm-export.schema";

export class RealmExportRepository extends TenantRepository<RealmExportDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<RealmExportDoc>("RealmExport", realmExportSchema));
  }

  async insert(
    doc: Omit<
      RealmExportDoc,
      "exportId" | "status" | "dateFailed" | "dateDeleted" | "attempts" | "fileId" | "pathId" | "size"
    >,
  ): Promise<RealmExportDoc> {
    const exportId = await this.ids.next("realm_export");
    return this.insertOne({
      ...doc,
      exportId,
      status: "requested",
      dateFailed: null,
      dateDeleted: null,
      attempts: 0,
      fileId: null,
      pathId: null,
      size: 0,
    });
  }

  byId(realmId: number, exportId: number): Promise<RealmExportDoc | null> {
    return this.findOne(realmId, { exportId });
  }

  all(realmId: number): Promise<RealmExportDoc[]> {
    return this.find(realmId, {}, { sort: { exportId: 1 } });
  }

  /** Zulip's rate limit counts the exports requested since `since` (seconds). */
  requestedSince(realmId: number, since: number): Promise<number> {
    return this.count(realmId, { dateRequested: { $gte: since } });
  }

  /** A finished export's tarball by the path it is served at. */
  async finishedAt(realmId: number, pathId: string): Promise<RealmExportDoc | null> {
    return this.findOne(realmId, { pathId, status: "succeeded" });
  }

  /**
   * An instance takes the job (again, after a dead one): a new attempt writing
   * to `fileId`; null when the export is no longer to be made (deleted, done, failed).
   */
  start(realmId: number, exportId: number, fileId: string): Promise<RealmExportDoc | null> {
    return this.findOneAndUpdate(
      realmId,
      { exportId, status: { $in: ["requested", "started"] } },
      { $set: { status: "started", fileId }, $inc: { attempts: 1 } },
    );
  }

  /** The attempt writing `fileId` finished: the tarball is served at `pathId`. */
  succeed(realmId: number, exportId: number, fileId: string, pathId: string, size: number) {
    return this.findOneAndUpdate(
      realmId,
      { exportId, fileId, status: "started" },
      { $set: { status: "succeeded", pathId, size } },
    );
  }

  fail(realmId: number, exportId: number, fileId: string) {
    return this.findOneAndUpdate(
      realmId,
      { exportId, fileId, status: "started" },
      { $set: { status: "failed", dateFailed: Date.now() / 1000 } },
    );
  }

  markDeleted(realmId: number, exportId: number) {
    return this.findOneAndUpdate(
      realmId,
      { exportId, status: "succeeded" },
      { $set: { status: "deleted", dateDeleted: Date.now() / 1000 } },
    );
  }
}
