export const TOPICS_POLICIES = ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"] as const;
/** The organization's topics_policy (Zulip's RealmTopicsPolicyEnum): what channels with "inherit" follow. */
export const REALM_TOPICS_POLICIES = ["allow_empty_topic", "disable_empty_topic"] as const;
