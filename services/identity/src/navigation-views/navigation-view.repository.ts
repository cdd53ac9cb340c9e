import type { Connection } from "mongoose";
import { TenantRepository, type IdAllocator } from "@teamchat/shared";
import { navigationViewSchema, type NavigationViewDoc } from "./navigation-view.schema";

export class NavigationViewRepository extends TenantRepository<NavigationViewDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<NavigationViewDoc>("NavigationView", navigationViewSchema));
  }

  /** The user's views, oldest first. */
  async ofUser(realmId: number, userId: number): Promise<NavigationViewDoc[]> {
    return (await this.findOfUser(realmId, "userId", userId)).sort((a, b) => a.viewId - b.viewId);
  }

  byFragment(realmId: number, userId: number, fragment: string): Promise<NavigationViewDoc | null> {
    return this.findOne(realmId, { userId, fragment });
  }

  /** Whether one of the user's views has this name (Zulip compares names exactly). */
  async nameTaken(realmId: number, userId: number, name: string): Promise<boolean> {
    return (await this.count(realmId, { userId, name })) > 0;
  }

  /** Throws a duplicate-key error when the user has a view of this fragment already. */
  async insert(realmId: number, view: Omit<NavigationViewDoc, "realmId" | "viewId">): Promise<NavigationViewDoc> {
    return this.insertOne({ realmId, ...view, viewId: await this.ids.next("navigation_view") });
  }

  /** Sets the given properties; false when the view no longer exists. */
  async update(
    realmId: number,
    userId: number,
    fragment: string,
    change: Partial<Pick<NavigationViewDoc, "isPinned" | "name">>,
  ): Promise<boolean> {
    return (await this.updateOne(realmId, { userId, fragment }, { $set: change })) > 0;
  }

  /** False when there was no such view. */
  async remove(realmId: number, userId: number, fragment: string): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, fragment })) > 0;
  }
}
