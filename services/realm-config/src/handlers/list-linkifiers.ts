import { requireRealm, type Handler, type realmConfig } from "@teamchat/shared";
import { linkifierView } from "../linkifiers/linkifier-view";
import type { LinkifierRepository } from "../linkifiers/linkifier.repository";

/** GET /realm/linkifiers (Zulip's list_linkifiers): any user of the organization (the gateway checked who); messaging loads its copy with it. */
export const listLinkifiersHandler =
  ({ linkifiers }: { linkifiers: LinkifierRepository }): Handler<typeof realmConfig.listLinkifiers> =>
  async (_p, ctx) => ({ linkifiers: (await linkifiers.inOrder(requireRealm(ctx).id)).map(linkifierView) });

/** GET /realm/filters, the pre-feature-level-54 listing: [pattern, url_template, id] tuples. */
export const listLegacyFiltersHandler =
  ({ linkifiers }: { linkifiers: LinkifierRepository }): Handler<typeof realmConfig.listLegacyFilters> =>
  async (_p, ctx) => ({
    filters: (await linkifiers.inOrder(requireRealm(ctx).id)).map(
      (l) => [l.pattern, l.urlTemplate, l.linkifierId] as [string, string, number],
    ),
  });
