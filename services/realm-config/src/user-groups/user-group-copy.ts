import type { NatsConnection } from "@nats-io/transport-node";
import {
  DURABLE_CONSUMERS,
  EventFedCopy,
  GroupMembership,
  identityEvents,
  requireRealm,
  type CallContext,
  type Connection,
  type GroupMembers,
  type Logger,
  type PayloadOf,
} from "@teamchat/shared";

type UserGroupEvent = PayloadOf<typeof identityEvents.userGroup>;
type UserGroupsBackfill = PayloadOf<typeof identityEvents.userGroupsBackfill>;

const SCOPE_PREFIX = "group:";
const scopeOf = (groupId: number) => `${SCOPE_PREFIX}${groupId}`;
/** A group's facts: that it exists (deactivated groups too, as identity keeps them), and who is in it. */
const MEMBER = "member:";
const SUBGROUP = "subgroup:";
const member = (userId: number) => `${MEMBER}${userId}`;
const subgroup = (groupId: number) => `${SUBGROUP}${groupId}`;
const each = (ids: readonly number[], name: (id: number) => string, value: boolean) =>
  Object.fromEntries(ids.map((id) => [name(id), value]));
/** A whole group's facts, as a creation event and the backfill give it. */
const groupFacts = (members: readonly number[], subgroupIds: readonly number[]) => ({
  exists: true,
  ...each(members, member, true),
  ...each(subgroupIds, subgroup, true),
});

/**
 * realm-config's copy of identity's user-created groups (EventFedCopy), for
 * the group settings it checks (PATCH /realm's group-setting values,
 * can_add_custom_emoji_group), so that realm-config never asks identity, which
 * sits above it. Fed by identity's user_group events and its one-time
 * backfill of groups made before the copy.
 */
export class UserGroupCopy {
  private constructor(
    private readonly copy: EventFedCopy,
    private readonly consumer: { stop(): Promise<void> },
  ) {}

  static async start(nc: NatsConnection, db: Connection, log: Logger): Promise<UserGroupCopy> {
    const copy = new EventFedCopy(nc, db, "user_group_copy");
    const apply = async ({ realmId, event }: UserGroupEvent, seq: number) => {
      switch (event.op) {
        case "add":
          return copy.set(
            realmId,
            scopeOf(event.group.id),
            groupFacts(event.group.members, event.group.direct_subgroup_ids),
            seq,
          );
        case "add_members":
        case "remove_members":
          return copy.set(
            realmId,
            scopeOf(event.group_id),
            each(event.user_ids, member, event.op === "add_members"),
            seq,
          );
        case "add_subgroups":
        case "remove_subgroups":
          return copy.set(
            realmId,
            scopeOf(event.group_id),
            each(event.direct_subgroup_ids, subgroup, event.op === "add_subgroups"),
            seq,
          );
        // a name, description, setting or deactivation: the group and its members stay
        default:
          return;
      }
    };
    const backfill = async ({ realmId, asOf, groups }: UserGroupsBackfill) => {
      for (const g of groups)
        await copy.set(realmId, scopeOf(g.id), groupFacts(g.members, g.direct_subgroup_ids), asOf);
    };
    const consumer = await copy.start(
      [
        {
          consumer: DURABLE_CONSUMERS.realmConfigUserGroups,
          def: identityEvents.userGroup,
          handle: (payload, { seq }) => apply(payload as UserGroupEvent, seq),
        },
        {
          consumer: DURABLE_CONSUMERS.realmConfigUserGroupsBackfill,
          def: identityEvents.userGroupsBackfill,
          handle: (payload) => backfill(payload as UserGroupsBackfill),
        },
      ],
      log,
    );
    return new UserGroupCopy(copy, consumer);
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  /** The groups of the request's organization, as identity's getUserGroupMemberships would answer them. */
  async get(ctx: CallContext): Promise<GroupMembership> {
    const groups = new Map<number, GroupMembers>();
    for (const [scope, facts] of await this.copy.read(requireRealm(ctx).id)) {
      if (facts.exists !== true) continue;
      const ids = (prefix: string) =>
        Object.keys(facts)
          .filter((name) => name.startsWith(prefix) && facts[name] === true)
          .map((name) => Number(name.slice(prefix.length)));
      groups.set(Number(scope.slice(SCOPE_PREFIX.length)), { members: ids(MEMBER), subgroups: ids(SUBGROUP) });
    }
    return new GroupMembership(groups);
  }
}
