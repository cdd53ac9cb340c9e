import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { messagingEvents } from "@teamchat/shared";
import { PerUserLists } from "../users/per-user-lists";
import { usersAlerted } from "./alert-word-match";
import type { AlertWordRepository } from "./alert-word.repository";

/**
 * Every user's alert words, per organization, in memory (kept current by
 * alert_words events): the send path flags each recipient's matches without
 * reading the database. Writes go to `stored`.
 */
export class AlertWordIndex extends PerUserLists<string, { alert_words: string[] }> {
  constructor(
    readonly stored: AlertWordRepository,
    nc: NatsConnection,
    log: Logger,
  ) {
    super(
      nc,
      log,
      messagingEvents.alertWordsChanged,
      (realmId) => stored.ofRealm(realmId),
      (e) => e.alert_words,
    );
  }

  /**
   * The recipients whose alert words appear in the message's content: those
   * with alert words are looked at, not every recipient of a large channel.
   */
  async usersAlerted(realmId: number, content: string, recipients: ReadonlySet<number>): Promise<Set<number>> {
    const words = await this.of(realmId);
    return usersAlerted(
      content,
      [...words.keys()].filter((id) => recipients.has(id)),
      words,
    );
  }
}
