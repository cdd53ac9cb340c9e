import type { Connection } from "mongoose";
import { IdAllocator, TenantRepository } from "@teamchat/shared";
import { playgroundSchema, type PlaygroundDoc } from "./playground.schema";

export class PlaygroundRepository extends TenantRepository<PlaygroundDoc> {
  constructor(
    conn: Connection,
    private readonly ids: IdAllocator,
  ) {
    super(conn.model<PlaygroundDoc>("Playground", playgroundSchema));
  }

  /** The organization's playgrounds, by id (Zulip's get_realm_playgrounds). */
  all(realmId: number): Promise<PlaygroundDoc[]> {
    return this.find(realmId, {}, { sort: { playgroundId: 1 } });
  }

  /** A language and name pair taken fails with the unique index's error. */
  async insert(realmId: number, playground: Omit<PlaygroundDoc, "realmId" | "playgroundId">): Promise<PlaygroundDoc> {
    return this.insertOne({ ...playground, realmId, playgroundId: await this.ids.next("playground") });
  }

  /** Whether there was such a playground to delete. */
  async remove(realmId: number, playgroundId: number): Promise<boolean> {
    return (await this.deleteMany(realmId, { playgroundId })) > 0;
  }
}
