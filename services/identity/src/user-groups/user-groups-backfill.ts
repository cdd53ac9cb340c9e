import type { NatsConnection } from "@nats-io/transport-node";
import {
  backfillCopiesOnce,
  identityEvents,
  type Connection,
  type EventPublisher,
  type Logger,
} from "@teamchat/shared";
import type { UserGroupRepository } from "./user-group.repository";

/**
 * Gives the copies other services keep of user groups (realm-config's, for
 * its group settings) the groups made before those copies existed: one
 * user_groups_backfill event per organization, once per deployment, with the
 * members as stored (getUserGroupMemberships' answer).
 */
export function backfillUserGroupCopies(deps: {
  nc: NatsConnection;
  db: Connection;
  groups: UserGroupRepository;
  events: EventPublisher<"identity">;
  log: Logger;
}): Promise<void> {
  return backfillCopiesOnce(
    deps,
    identityEvents.userGroupsBackfill.subject,
    () => deps.groups.inEveryRealm(),
    (realmId, groups, asOf) =>
      deps.events.publishAndWait(identityEvents.userGroupsBackfill, {
        realmId,
        asOf,
        groups: groups.map((g) => ({ id: g.groupId, members: g.members, direct_subgroup_ids: g.subgroups })),
      }),
  );
}
