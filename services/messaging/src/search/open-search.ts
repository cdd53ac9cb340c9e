import { databaseName, type Config, type Logger } from "@teamchat/shared";
import type { Connection } from "mongoose";
import { badNarrow } from "../narrow/conditions";
import { MongoTextSearch } from "./mongo-text-search";
import { PostgresSearch } from "./postgres-search";
import type { SearchEngine } from "./search-engine";

/** What answers search when no engine could be opened: every search narrow is refused, saying why. */
const unavailable = (why: string): SearchEngine => ({
  name: "none",
  stopWords: [],
  selects: () => false,
  walk: () => Promise.reject(badNarrow(`search is not available on this server (${why})`)),
  highlight: () => Promise.resolve(new Map()),
  index: () => Promise.resolve(),
  remove: () => Promise.resolve(),
  backfillBelow: () => Promise.resolve(null),
  backfillDone: () => Promise.resolve(),
  close: () => Promise.resolve(),
});

/**
 * The search engine for this deployment, chosen at start-up: PostgreSQL's
 * full-text search at SEARCH_URL when it is set (the embedded default, whose
 * database has no text indexes), else the database's own text index (MongoDB).
 */
export async function openSearchEngine(config: Config, db: Connection, log: Logger): Promise<SearchEngine> {
  if (config.SEARCH_URL) {
    const engine = await PostgresSearch.open(config.SEARCH_URL, databaseName(config, "messaging"));
    log.info({ engine: engine.name }, "search engine");
    return engine;
  }
  try {
    const engine = await MongoTextSearch.open(db);
    log.info({ engine: engine.name }, "search engine");
    return engine;
  } catch (err) {
    const why = `the database refused a text index (${(err as Error).message}) and SEARCH_URL is not set`;
    log.error({ err }, `search engine: none: ${why}`);
    return unavailable(why);
  }
}
