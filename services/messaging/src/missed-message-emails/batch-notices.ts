import type { notifications } from "@teamchat/shared";
import type { EmailNoticeDoc } from "./email-notice.repository";
import type { PendingRow } from "./pending-email.repository";

/**
 * Whether a user's row lists the item for them. The round that stored an
 * item lists it, and no other: a delivery of the item again stores nothing,
 * and its round's rows list what was stored already, which the first round's
 * rows mail or mailed. A row stored before items named their round lists an
 * item the user is still pending on.
 */
export const listsItem = (row: PendingRow, item: EmailNoticeDoc, userId: number): boolean =>
  row.round === undefined ? (item.pendingUserIds ?? []).includes(userId) : item.round === row.round;

/** One message of a user's batch, with the stored items that notify the user of it (an edit's or a collected queue's may repeat a message). */
export interface BatchNotice {
  notice: notifications.MissedMessageNotice;
  itemIds: string[];
}

/**
 * The user's notices in these items, each message once: an edit's or a
 * collected queue's item may repeat a message, and as in Zulip's
 * handle_missedmessage_emails the latest stored decision's trigger is the one
 * the email gives.
 */
export function batchNoticesOf(realmId: number, userId: number, items: EmailNoticeDoc[]): BatchNotice[] {
  const byMessage = new Map<number, BatchNotice>();
  for (const { _id: id, ...item } of [...items].sort((a, b) => a.storedAt.getTime() - b.storedAt.getTime())) {
    const user = item.users.find((u) => u.userId === userId);
    if (!user) continue;
    const { batchingSeconds: _batching, ...notified } = user;
    const itemIds = [...(byMessage.get(item.message.id)?.itemIds ?? []), id];
    byMessage.set(item.message.id, { notice: { realmId, message: item.message, ...notified }, itemIds });
  }
  return [...byMessage.values()];
}
