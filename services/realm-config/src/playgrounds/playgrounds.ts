import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  badRequest,
  EventKeyedCache,
  MAX_PYGMENTS_LANGUAGE_LENGTH,
  provideState,
  realmConfig,
  realmConfigEvents,
  requireRealm,
  uriTemplateVariables,
  type EventPublisher,
  type ZulipError,
} from "@teamchat/shared";
import { BLANK, NON_FIELD, ValidationFailure } from "../validation-failure";
import type { PlaygroundRepository } from "./playground.repository";
import type { PlaygroundDoc } from "./playground.schema";

/** The characters a code block's language may have (Zulip's check_pygments_language). */
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;
/** Django's unique_together message for (realm, pygments_language, name). */
const PLAYGROUND_TAKEN = "Realm playground with this Realm, Pygments language and Name already exists.";

/** Zulip's check_pygments_language, the parameter check done before anything else. */
export function checkPygmentsLanguage(language: string): void {
  if ([...language].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    throw badRequest(`pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`);
  }
  if (!PYGMENTS_LANGUAGE.test(language)) throw badRequest("Invalid characters in pygments language");
}

/**
 * Zulip's RealmPlayground.full_clean (values stripped): the template's RFC 6570
 * syntax, blank name or language, `code` the template's one variable, and the
 * language and name pair unique in the organization.
 */
export function checkPlayground(p: Omit<PlaygroundDoc, "realmId" | "playgroundId">, others: PlaygroundDoc[]): void {
  const failure = new ValidationFailure();
  const variables = uriTemplateVariables(p.urlTemplate);
  if (!p.urlTemplate) failure.add("url_template", BLANK);
  else if (!variables) failure.add("url_template", "Invalid URL template.");
  if (!p.name) failure.add("name", BLANK);
  if (!p.pygmentsLanguage) failure.add("pygments_language", BLANK);
  if (variables && !variables.has("code")) {
    failure.add(NON_FIELD, 'Missing the required variable "code" in the URL template');
  } else if (variables && variables.size !== 1) {
    failure.add(NON_FIELD, '"code" should be the only variable present in the URL template');
  }
  const uniqueChecked = !failure.has("name") && !failure.has("pygments_language");
  if (uniqueChecked && others.some((o) => o.name === p.name && o.pygmentsLanguage === p.pygmentsLanguage)) {
    failure.add(NON_FIELD, PLAYGROUND_TAKEN);
  }
  failure.throwIfAny();
}

/** The unique index's refusal, for a playground another request saved meanwhile. */
export const playgroundTaken = (): ZulipError =>
  badRequest(PLAYGROUND_TAKEN, { errors: { [NON_FIELD]: [PLAYGROUND_TAKEN] } });

/** Zulip's RealmPlaygroundDict. */
const playgroundView = (p: PlaygroundDoc): realmConfig.RealmPlayground => ({
  id: p.playgroundId,
  name: p.name,
  pygments_language: p.pygmentsLanguage,
  url_template: p.urlTemplate,
});

/** Zulip's notify_realm_playgrounds: the whole list after the write, to everyone in the organization. */
export async function publishPlaygrounds(
  { playgrounds, events }: { playgrounds: PlaygroundRepository; events: EventPublisher<"realm-config"> },
  realmId: number,
  requestId: string,
): Promise<void> {
  const list = (await playgrounds.all(realmId)).map(playgroundView);
  events.publish(
    realmConfigEvents.realmPlaygrounds,
    { realmId, userIds: "all", event: { type: "realm_playgrounds", realm_playgrounds: list } },
    requestId,
  );
}

/** Playgrounds kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_PLAYGROUNDS = 20_000;

/**
 * register's realm_playgrounds, from memory (every register reads them),
 * dropped on the realm_playgrounds event every change publishes.
 */
export function playgroundsState({
  playgrounds,
  nc,
  log,
}: {
  playgrounds: PlaygroundRepository;
  nc: NatsConnection;
  log: Logger;
}) {
  const lists = EventKeyedCache.listsByRealm<
    realmConfig.RealmPlayground,
    typeof realmConfigEvents.realmPlaygrounds.payload
  >(nc, log, realmConfigEvents.realmPlaygrounds, "playgrounds", MAX_CACHED_PLAYGROUNDS);
  const provider = provideState(realmConfig.realmPlaygroundsPart, async (_p, ctx) => {
    const realmId = requireRealm(ctx).id;
    return {
      realm_playgrounds: await lists.get(`${realmId}`, async () =>
        (await playgrounds.all(realmId)).map(playgroundView),
      ),
    };
  });
  return { provider, stop: () => lists.stop() };
}
