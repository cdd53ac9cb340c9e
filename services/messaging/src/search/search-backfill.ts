import type { IdAllocator, Logger } from "@teamchat/shared";
import type { MessageRepository } from "../messages/message.repository";
import type { SearchEngine } from "./search-engine";

/** Messages read and indexed at a time. */
const BATCH = 500;

/**
 * Adds the messages stored before the search index existed (a deployment that
 * had a history when search came) to it, in the background: searches find what
 * is indexed so far at once. One pass over the messages; a restart before it
 * ends makes it again, keeping what is indexed (sends and edits since), and
 * once it ends no start makes it again.
 */
export async function startSearchBackfill(deps: {
  messages: MessageRepository;
  search: SearchEngine;
  ids: IdAllocator;
  log: Logger;
}): Promise<{ stop(): Promise<void> }> {
  const below = await deps.search.backfillBelow(await deps.ids.current("message"));
  if (below === null) return { stop: async () => undefined };
  let stopped = false;
  const pass = (async () => {
    let indexed = 0;
    for await (const batch of deps.messages.everyMessageBelow(below, BATCH)) {
      if (stopped) return;
      await deps.search.index(batch, "keep");
      indexed += batch.length;
    }
    await deps.search.backfillDone();
    if (indexed) deps.log.info({ indexed }, "search index: the messages stored before it are indexed");
  })().catch((err: unknown) => deps.log.error({ err }, "search index: adding the earlier messages failed"));
  return {
    stop: async () => {
      stopped = true;
      await pass;
    },
  };
}
