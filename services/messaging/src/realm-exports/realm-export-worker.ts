import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { EventPublisher } from "@teamchat/shared";
import { internalSendPrivateMessage, type InternalSendDeps } from "../messages/internal-send";
import type { UserDirectory } from "../users/user-directory";
import type { ExportQueue } from "./export-queue";
import { notifyRealmExport } from "./realm-export-events";
import type { RealmExportRepository } from "./realm-export.repository";
import type { RealmExporter } from "./realm-exporter";

/**
 * Zulip's export_realm_from_event, run by every messaging instance on the jobs
 * of the export queue: the export, then administrators hear realm_export and
 * the requester gets Notification Bot's "Your data export is complete."
 */
export function startRealmExportWorker(
  deps: InternalSendDeps & {
    queue: ExportQueue;
    exporter: RealmExporter;
    exports: RealmExportRepository;
    users: UserDirectory;
    events: EventPublisher<"messaging">;
  },
  log: Logger,
): void {
  deps.queue.start(async ({ realmId, exportId }, signal) => {
    const row = await deps.exporter.run(exportId, realmId, signal);
    if (!row) return;
    const requestId = `realm-export-${realmId}-${exportId}-${randomUUID()}`;
    const ctx = {
      realm: row.realm,
      actor: row.actor,
      requestId,
      log: log.child({ requestId }),
      parked: <T>(w: T) => w,
    };
    await notifyRealmExport(deps, ctx, realmId);
    if (row.status === "succeeded") {
      await internalSendPrivateMessage(
        deps,
        ctx,
        row.actor.userId,
        "Your data export is complete. [View and download exports](/#organization/data-exports-admin).",
      );
    }
  });
}
