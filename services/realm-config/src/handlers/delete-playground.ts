import { badRequest, isAdmin, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import type { PlaygroundRepository } from "../playgrounds/playground.repository";
import { publishPlaygrounds } from "../playgrounds/playgrounds";

/** DELETE /realm/playgrounds/{playground_id} (Zulip's delete_realm_playground): administrators. */
export const deletePlaygroundHandler =
  ({
    playgrounds,
    events,
  }: {
    playgrounds: PlaygroundRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.deletePlayground> =>
  async ({ playground_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!(await playgrounds.remove(realm.id, playground_id))) throw badRequest("Invalid playground");
    await publishPlaygrounds({ playgrounds, events }, realm.id, ctx.requestId);
    return {};
  };
