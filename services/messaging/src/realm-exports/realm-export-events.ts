import {
  Role,
  messagingEvents,
  type CallContext,
  type EventPublisher,
  type RealmRef,
  type messaging,
} from "@teamchat/shared";
import type { UserDirectory } from "../users/user-directory";
import type { RealmExportRepository } from "./realm-export.repository";
import type { RealmExportDoc } from "./realm-export.schema";

/** Zulip's get_realm_exports_serialized: every export, its URL once it succeeded. */
export const realmExportViews = (realm: RealmRef, rows: RealmExportDoc[]): messaging.RealmExportView[] =>
  rows.map((e) => ({
    id: e.exportId,
    export_time: e.dateRequested,
    acting_user_id: e.actor.userId,
    export_url: e.status === "succeeded" && e.pathId ? `${realm.uri}/user_uploads/${e.pathId}` : null,
    deleted_timestamp: e.dateDeleted,
    failed_timestamp: e.dateFailed,
    pending: e.status === "requested" || e.status === "started",
    export_type: e.type,
  }));

/** Zulip's notify_realm_export: the organization's exports, to its human administrators. */
export async function notifyRealmExport(
  deps: { exports: RealmExportRepository; users: UserDirectory; events: EventPublisher<"messaging"> },
  ctx: CallContext,
  realmId: number,
): Promise<void> {
  const [rows, users] = await Promise.all([deps.exports.all(realmId), deps.users.all(ctx, realmId)]);
  const admins = users.filter((u) => u.is_active && !u.is_bot && u.role <= Role.ADMINISTRATOR).map((u) => u.user_id);
  deps.events.publish(
    messagingEvents.realmExportChanged,
    { realmId, userIds: admins, event: { type: "realm_export", exports: realmExportViews(ctx.realm!, rows) } },
    ctx.requestId,
  );
}
