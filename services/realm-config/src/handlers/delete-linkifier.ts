import { badRequest, isAdmin, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { publishLinkifiers } from "../linkifiers/linkifier-view";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";

/** DELETE /realm/filters/{filter_id} (Zulip's delete_linkifier + do_remove_linkifier): administrators. */
export const deleteLinkifierHandler =
  ({
    linkifiers,
    events,
  }: {
    linkifiers: LinkifierRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.deleteLinkifier> =>
  async ({ filter_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (!(await linkifiers.remove(realm.id, filter_id))) throw badRequest("Linkifier not found.");
    await publishLinkifiers({ linkifiers, events }, realm.id, ctx.requestId);
    return {};
  };
