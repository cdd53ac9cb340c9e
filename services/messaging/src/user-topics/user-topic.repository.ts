import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey, messaging } from "@teamchat/shared";
import { userTopicSchema, type UserTopicDoc } from "./user-topic.schema";

const { FOLLOWED } = messaging.VISIBILITY_POLICY;

export class UserTopicRepository extends TenantRepository<UserTopicDoc> {
  constructor(conn: Connection) {
    super(conn.model<UserTopicDoc>("UserTopic", userTopicSchema));
  }

  /** Every topic the user set a visibility policy for. */
  ofUser(realmId: number, userId: number): Promise<UserTopicDoc[]> {
    return this.findOfUser(realmId, "userId", userId);
  }

  /** The channel's topics some user follows: each follower and the topic's key. */
  async followersIn(realmId: number, streamId: number): Promise<Array<{ userId: number; topicKey: string }>> {
    const rows = await this.find(
      realmId,
      { streamId, visibilityPolicy: FOLLOWED },
      { projection: { userId: 1, topicKey: 1 } },
    );
    return rows.map((r) => ({ userId: r.userId, topicKey: r.topicKey }));
  }

  /**
   * Sets the user's policy for the topic; false when it already was that
   * (Zulip's bulk_set_user_topic_visibility_policy_in_database leaves such a
   * row alone). A changed policy keeps the topic's first spelling.
   */
  async set(
    realmId: number,
    userId: number,
    streamId: number,
    topicName: string,
    visibilityPolicy: messaging.VisibilityPolicy,
    lastUpdated: number,
  ): Promise<boolean> {
    const topicKey = topicName.toLowerCase();
    const other = { userId, streamId, topicKey, visibilityPolicy: { $ne: visibilityPolicy } };
    if (await this.updateOne(realmId, other, { $set: { visibilityPolicy, lastUpdated } })) return true;
    try {
      await this.insertOne({ realmId, userId, streamId, topicKey, topicName, visibilityPolicy, lastUpdated });
      return true;
    } catch (err) {
      // the row exists with this policy already (or a concurrent request just made it): retry the change once
      if (!isDuplicateKey(err)) throw err;
      return (await this.updateOne(realmId, other, { $set: { visibilityPolicy, lastUpdated } })) > 0;
    }
  }

  /** Removes the user's policy for the topic; false when there was none. */
  async remove(realmId: number, userId: number, streamId: number, topicName: string): Promise<boolean> {
    return (await this.deleteMany(realmId, { userId, streamId, topicKey: topicName.toLowerCase() })) > 0;
  }
}
