import {
  Role,
  badRequest,
  identity,
  isAdmin,
  messaging,
  mustBeAdmin,
  requireUser,
  type BusClient,
  type CallContext,
  type EventPublisher,
  type FileStore,
  type Handler,
} from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { ExportQueue } from "../realm-exports/export-queue";
import type { RealmExportRepository } from "../realm-exports/realm-export.repository";
import { notifyRealmExport, realmExportViews } from "../realm-exports/realm-export-events";

/** Zulip's EXPORT_LIMIT: exports an organization may request in a week. */
const EXPORTS_PER_WEEK = 5;
const WEEK_SECONDS = 7 * 24 * 60 * 60;

interface ExportDeps {
  exports: RealmExportRepository;
  users: UserDirectory;
  events: EventPublisher<"messaging">;
}

/** Zulip's require_realm_admin. */
function requireAdmin(ctx: CallContext) {
  const caller = requireUser(ctx);
  if (!isAdmin(caller.actor)) throw mustBeAdmin();
  return caller;
}

/**
 * POST /export/realm (Zulip's export_realm): at most EXPORTS_PER_WEEK a week;
 * a full export needs an owner's consent. The job is queued for any instance;
 * administrators hear realm_export with the pending export.
 */
export const exportRealmHandler =
  (deps: ExportDeps & { queue: ExportQueue; bus: BusClient }): Handler<typeof messaging.exportRealm> =>
  async ({ export_type }, ctx) => {
    const { realm, actor } = requireAdmin(ctx);
    const now = Date.now() / 1000;
    if ((await deps.exports.requestedSince(realm.id, now - WEEK_SECONDS)) >= EXPORTS_PER_WEEK) {
      throw badRequest("Exceeded rate limit.");
    }
    if (export_type === messaging.ExportType.FULL_WITH_CONSENT) {
      const [{ export_consents }, users] = await Promise.all([
        deps.bus.request(identity.getExportConsents, {}, ctx),
        deps.users.all(ctx, realm.id),
      ]);
      const owners = new Set(users.filter((u) => u.role === Role.OWNER).map((u) => u.user_id));
      if (!export_consents.some((c) => c.consented && owners.has(c.user_id))) {
        throw badRequest(
          "Make sure at least one Organization Owner is consenting to the export or contact the server's administrators for help.",
        );
      }
    }
    const row = await deps.exports.insert({
      realmId: realm.id,
      type: export_type,
      realm,
      actor,
      dateRequested: now,
    });
    await notifyRealmExport(deps, ctx, realm.id);
    await deps.queue.enqueue({ realmId: realm.id, exportId: row.exportId });
    ctx.log.info({ exportId: row.exportId, exportType: export_type }, "realm export requested");
    return { id: row.exportId };
  };

/** GET /export/realm (Zulip's get_realm_exports). */
export const getRealmExportsHandler =
  (deps: { exports: RealmExportRepository }): Handler<typeof messaging.getRealmExports> =>
  async (_p, ctx) => {
    const { realm } = requireAdmin(ctx);
    return { exports: realmExportViews(realm, await deps.exports.all(realm.id)) };
  };

/** DELETE /export/realm/{export_id} (Zulip's delete_realm_export): the tarball goes; the row says when. */
export const deleteRealmExportHandler =
  (deps: ExportDeps & { files: FileStore }): Handler<typeof messaging.deleteRealmExport> =>
  async ({ export_id }, ctx) => {
    const { realm } = requireAdmin(ctx);
    const row = await deps.exports.byId(realm.id, export_id);
    if (!row) throw badRequest("Invalid data export ID");
    if (row.status === "deleted") throw badRequest("Export already deleted");
    if (row.status === "failed") throw badRequest("Export failed, nothing to delete");
    if (row.status !== "succeeded") throw badRequest("Export still in progress");
    const deleted = await deps.exports.markDeleted(realm.id, export_id);
    if (!deleted) throw badRequest("Export already deleted");
    if (row.fileId) await deps.files.remove(realm.id, [row.fileId]);
    await notifyRealmExport(deps, ctx, realm.id);
    return {};
  };
