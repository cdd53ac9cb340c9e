import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { linkifierSchema, type LinkifierDoc } from "./linkifier.schema";

export class LinkifierRepository extends TenantRepository<LinkifierDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<LinkifierDoc>("Linkifier", linkifierSchema));
  }

  /** The organization's linkifiers in processing order (Zulip's linkifiers_for_realm). */
  inOrder(realmId: number): Promise<LinkifierDoc[]> {
    return this.find(realmId, {}, { sort: { order: 1, linkifierId: 1 } });
  }

  byId(realmId: number, linkifierId: number): Promise<LinkifierDoc | null> {
    return this.findOne(realmId, { linkifierId });
  }

  /** A new linkifier goes last (Zulip's do_add_linkifier); a pattern taken fails with the unique index's error. */
  async insert(realmId: number, linkifier: Pick<LinkifierDoc, "pattern" | "urlTemplate">): Promise<LinkifierDoc> {
    const last = await this.find(realmId, {}, { sort: { order: -1 }, limit: 1 });
    return this.insertOne({
      ...linkifier,
      realmId,
      linkifierId: await this.ids.next("linkifier"),
      order: last.length ? last[0]!.order + 1 : 0,
    });
  }

  /** Replaces the pattern and template; a pattern another linkifier has fails with the unique index's error. */
  async update(realmId: number, linkifierId: number, changes: Pick<LinkifierDoc, "pattern" | "urlTemplate">) {
    await this.updateOne(realmId, { linkifierId }, { $set: changes });
  }

  /** Whether there was such a linkifier to delete. */
  async remove(realmId: number, linkifierId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { linkifierId })) > 0;
  }

  /** Sets each linkifier's `order`. */
  async setOrder(realmId: number, orderById: ReadonlyMap<number, number>): Promise<void> {
    await Promise.all(
      [...orderById].map(([linkifierId, order]) => this.updateOne(realmId, { linkifierId }, { $set: { order } })),
    );
  }
}
