import { setTimeout as sleep } from "node:timers/promises";
import { ZulipError } from "@teamchat/shared";
import type { SendReceiptRepository } from "./send-receipt.repository";

/** How long a retry waits for the first attempt still sending (a client that timed out before the send finished). */
const SENDING_WAIT_MS = 5_000;
const SENDING_POLL_MS = 100;

export interface KeyedSend {
  /** Stores and delivers a new message, telling `stored` its id as soon as it is stored; its id. */
  send(stored: (messageId: number) => Promise<void>): Promise<number>;
  /** Delivers a message an earlier attempt stored but did not finish delivering. */
  finish(messageId: number): Promise<void>;
  /** The message an earlier attempt stored with this key, if any (looked for after a failed attempt only). */
  storedEarlier(): Promise<number | null>;
}

/**
 * Sends once per (sender, key): a retry of a send that posted answers the
 * first message's id, and finishes its delivery if the first attempt failed
 * halfway; a send that failed before storing leaves nothing, so its retry sends.
 */
export async function sendOnce(
  receipts: SendReceiptRepository,
  realmId: number,
  senderId: number,
  key: string | undefined,
  work: KeyedSend,
): Promise<number> {
  if (key === undefined) return work.send(async () => undefined);
  for (const giveUpAt = Date.now() + SENDING_WAIT_MS; ; await sleep(SENDING_POLL_MS)) {
    const claim = await receipts.claim(realmId, senderId, key);
    if (claim.kind === "sent") return claim.messageId;
    if (claim.kind === "claimed" || claim.kind === "stored") {
      try {
        const storedId = claim.kind === "stored" ? claim.messageId : claim.retry ? await work.storedEarlier() : null;
        let messageId: number;
        if (storedId !== null) await work.finish((messageId = storedId));
        else messageId = await work.send((id) => receipts.stored(realmId, senderId, key, id));
        await receipts.delivered(realmId, senderId, key);
        return messageId;
      } catch (err) {
        // the database may be what failed: then the claim is taken over once old (ABANDONED_AFTER_MS)
        await receipts.failed(realmId, senderId, key).catch(() => undefined);
        throw err;
      }
    }
    if (Date.now() >= giveUpAt) {
      throw new ZulipError("BAD_REQUEST", "A message with this key is still being sent; retry later.", 409);
    }
  }
}
