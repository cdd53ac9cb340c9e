import { provideState, realmConfig } from "@teamchat/shared";

/**
 * Organization features this server does not offer yet (allowed email
 * domains): their register state
 * is that of an organization that configured none, which clients expect to
 * find whenever they ask for those event types.
 */
export const unconfiguredStates = [provideState(realmConfig.realmDomainsPart, async () => ({ realm_domains: [] }))];
