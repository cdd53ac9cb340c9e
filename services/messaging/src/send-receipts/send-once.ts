import { setTimeout as sleep } from "node:timers/promises";
import { ZulipError } from "@teamchat/shared";
import type { SendReceiptRepository } from "./send-receipt.repository";

/** How long a retry waits for the first attempt still sending (a client that timed out before the send finished). */
const SENDING_WAIT_MS = 5_000;
const SENDING_POLL_MS = 100;

/** The key a send is recognized by on retry: its Idempotency-Key header, else Zulip's local echo pair. */
export function sendKey(p: { idempotency_key?: string; queue_id?: string; local_id?: string }): string | undefined {
  if (p.idempotency_key !== undefined) return `header:${p.idempotency_key}`;
  if (p.queue_id !== undefined && p.local_id !== undefined) return `local:${p.queue_id}:${p.local_id}`;
  return undefined;
}

/**
 * Runs `send` once per (sender, key): a retry of a send that posted answers the
 * first message's id; a failed send leaves nothing, so its retry sends.
 */
export async function sendOnce(
  receipts: SendReceiptRepository,
  realmId: number,
  senderId: number,
  key: string | undefined,
  send: () => Promise<number>,
): Promise<number> {
  if (key === undefined) return send();
  for (const giveUpAt = Date.now() + SENDING_WAIT_MS; ; await sleep(SENDING_POLL_MS)) {
    const claim = await receipts.claim(realmId, senderId, key);
    if (claim.kind === "sent") return claim.messageId;
    if (claim.kind === "claimed") break;
    if (Date.now() >= giveUpAt) {
      throw new ZulipError("BAD_REQUEST", "A message with this key is still being sent; retry later.", 409);
    }
  }
  let messageId: number;
  try {
    messageId = await send();
  } catch (err) {
    await receipts.release(realmId, senderId, key);
    throw err;
  }
  await receipts.complete(realmId, senderId, key, messageId);
  return messageId;
}
