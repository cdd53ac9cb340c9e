import { badRequest, isAdmin, mustBeAdmin, requireUser } from "@teamchat/shared";
import type { EventPublisher, Handler, realmConfig } from "@teamchat/shared";
import { publishLinkifiers } from "../linkifiers/linkifier-view";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";

/**
 * PATCH /realm/linkifiers (Zulip's check_reorder_linkifiers): administrators;
 * the list names every linkifier exactly once, and each one's order becomes its
 * position. With no linkifiers (and an empty list) nothing happens, no event.
 */
export const reorderLinkifiersHandler =
  ({
    linkifiers,
    events,
  }: {
    linkifiers: LinkifierRepository;
    events: EventPublisher<"realm-config">;
  }): Handler<typeof realmConfig.reorderLinkifiers> =>
  async ({ ordered_linkifier_ids: ids }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    const wanted = new Set(ids);
    if (wanted.size < ids.length) throw badRequest("The ordered list must not contain duplicated linkifiers");
    const all = await linkifiers.inOrder(realm.id);
    if (all.length !== wanted.size || all.some((l) => !wanted.has(l.linkifierId))) {
      throw badRequest("The ordered list must enumerate all existing linkifiers exactly once");
    }
    if (!all.length) return {};
    await linkifiers.setOrder(realm.id, new Map(ids.map((id, position) => [id, position])));
    await publishLinkifiers({ linkifiers, events }, realm.id, ctx.requestId);
    return {};
  };
