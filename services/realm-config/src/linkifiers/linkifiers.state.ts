import { provideState, realmConfig, requireRealm } from "@teamchat/shared";
import { linkifierView } from "./linkifier-view";
import type { LinkifierRepository } from "./linkifier.repository";

/**
 * register's realm_linkifiers (Zulip's fetch_initial_state_data): empty for
 * clients without the linkifier_url_template capability, which would read the
 * templates as format strings; and the legacy realm_filters, always empty
 * since feature level 176 for the same reason.
 */
export const linkifiersStates = (linkifiers: LinkifierRepository) => [
  provideState(realmConfig.realmLinkifiersPart, async (params, ctx) => ({
    realm_linkifiers:
      params.client_capabilities.linkifier_url_template === true
        ? (await linkifiers.inOrder(requireRealm(ctx).id)).map(linkifierView)
        : [],
  })),
  provideState(realmConfig.realmFiltersPart, async () => ({ realm_filters: [] })),
];
