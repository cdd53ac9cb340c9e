import { messaging, type BusServer, type EventPublisher } from "@teamchat/shared";
import type { AlertWordIndex } from "../alert-words/alert-word-index";
import { addAlertWordsHandler } from "../handlers/add-alert-words";
import { getAlertWordsHandler } from "../handlers/get-alert-words";
import { removeAlertWordsHandler } from "../handlers/remove-alert-words";

/** A user's alert words. */
export function registerAlertWordOperations(
  server: BusServer,
  {
    alertWords,
    events,
  }: {
    alertWords: AlertWordIndex;
    events: EventPublisher<"messaging">;
  },
): void {
  server
    .handle(messaging.getAlertWords, getAlertWordsHandler({ alertWords }))
    .handle(messaging.addAlertWords, addAlertWordsHandler({ alertWords, events }))
    .handle(messaging.removeAlertWords, removeAlertWordsHandler({ alertWords, events }));
}
