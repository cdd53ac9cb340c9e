import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { messaging } from "@teamchat/shared";
import type { UserTopics, UserTopicIndex } from "./user-topic-index";

/**
 * Zulip's is_row_muted (extract_unread_data_from_um_rows): a channel message
 * is muted for the user in a muted topic of an unmuted channel, or in a muted
 * channel unless its topic is unmuted or followed.
 */
export class TopicVisibility {
  constructor(
    private readonly topics: UserTopics,
    private readonly mutedStreamIds: ReadonlySet<number>,
  ) {}

  isMuted(streamId: number, topic: string): boolean {
    const policy = this.topics.policyOf(streamId, topic);
    const { MUTED, UNMUTED, FOLLOWED } = messaging.VISIBILITY_POLICY;
    if (this.mutedStreamIds.has(streamId)) return policy !== UNMUTED && policy !== FOLLOWED;
    return policy === MUTED;
  }
}

/** The user's TopicVisibility: their topics' policies and the channels they muted. */
export async function topicVisibilityOf(
  deps: { userTopics: UserTopicIndex; subscriptions: SubscriptionDirectory },
  realmId: number,
  userId: number,
): Promise<TopicVisibility> {
  const [topics, subscriptions] = await Promise.all([
    deps.userTopics.of(realmId, userId),
    deps.subscriptions.ofUser(realmId, userId),
  ]);
  return new TopicVisibility(
    topics,
    new Set(subscriptions.filter((s) => s.active && s.isMuted).map((s) => s.streamId)),
  );
}
