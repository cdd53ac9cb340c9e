import { isAdmin, isDuplicateKey, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import type { PlaygroundRepository } from "../playgrounds/playground.repository";
import {
  checkPlayground,
  checkPygmentsLanguage,
  playgroundTaken,
  publishPlaygrounds,
} from "../playgrounds/playgrounds";

/** POST /realm/playgrounds (Zulip's add_realm_playground + check_add_realm_playground): administrators. */
export const createPlaygroundHandler =
  ({
    playgrounds,
    events,
  }: {
    playgrounds: PlaygroundRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.createPlayground> =>
  async (p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    checkPygmentsLanguage(p.pygments_language);
    const playground = {
      name: p.name.trim(),
      pygmentsLanguage: p.pygments_language.trim(),
      urlTemplate: p.url_template.trim(),
    };
    checkPlayground(playground, await playgrounds.all(realm.id));
    let saved;
    try {
      saved = await playgrounds.insert(realm.id, playground);
    } catch (err) {
      if (isDuplicateKey(err)) throw playgroundTaken();
      throw err;
    }
    await publishPlaygrounds({ playgrounds, events }, realm.id, ctx.requestId);
    return { id: saved.playgroundId };
  };
