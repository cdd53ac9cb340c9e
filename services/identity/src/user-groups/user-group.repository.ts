import type { Connection } from "mongoose";
import {
  IdAllocator,
  LAST_SYSTEM_GROUP_ID,
  TenantRepository,
  type GroupSettingValue,
  type UserGroupSetting,
} from "@teamchat/shared";
import { userGroupSchema, type UserGroupDoc } from "./user-group.schema";

export type NewUserGroup = Pick<
  UserGroupDoc,
  "name" | "description" | "creatorId" | "members" | "subgroups" | "settings"
>;

export type UserGroupChanges = Partial<Pick<UserGroupDoc, "name" | "description" | "deactivated">> & {
  settings?: Partial<Record<UserGroupSetting, GroupSettingValue>>;
};

export class UserGroupRepository extends TenantRepository<UserGroupDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<UserGroupDoc>("UserGroup", userGroupSchema));
  }

  /** Every user-created group of the organization, deactivated ones included, in id order. */
  all(realmId: number): Promise<UserGroupDoc[]> {
    return this.find(realmId, {}, { sort: { groupId: 1 } });
  }

  /** Every user-created group of every organization: the one-time backfill of other services' copies. */
  inEveryRealm(): Promise<UserGroupDoc[]> {
    return this.findInEveryRealm({});
  }

  /** Ids above the system groups' (SYSTEM_GROUPS); a name taken fails with the unique index's error. */
  async insert(realmId: number, group: NewUserGroup): Promise<UserGroupDoc> {
    const groupId = LAST_SYSTEM_GROUP_ID + (await this.ids.next("user_group"));
    return this.insertOne({ ...group, realmId, groupId, dateCreated: new Date(), deactivated: false });
  }

  /** Sets the fields given; a name taken fails with the unique index's error. */
  async change(realmId: number, groupId: number, changes: UserGroupChanges): Promise<void> {
    const { settings = {}, ...fields } = changes;
    const set = { ...fields, ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`settings.${k}`, v])) };
    await this.updateOne(realmId, { groupId }, { $set: set });
  }

  /** Adds and removes direct members and subgroups (each list may be empty). */
  async changeMembership(
    realmId: number,
    groupId: number,
    {
      add,
      remove,
    }: { add: { members: number[]; subgroups: number[] }; remove: { members: number[]; subgroups: number[] } },
  ): Promise<void> {
    // $addToSet and $pull of one field cannot share an update: additions first, then removals
    if (add.members.length > 0 || add.subgroups.length > 0) {
      await this.updateOne(
        realmId,
        { groupId },
        { $addToSet: { members: { $each: add.members }, subgroups: { $each: add.subgroups } } },
      );
    }
    if (remove.members.length > 0 || remove.subgroups.length > 0) {
      await this.updateOne(
        realmId,
        { groupId },
        { $pull: { members: { $in: remove.members }, subgroups: { $in: remove.subgroups } } },
      );
    }
  }
}
