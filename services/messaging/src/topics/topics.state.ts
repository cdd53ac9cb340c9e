import { messaging, provideState, type StateProvider } from "@teamchat/shared";

/** register's muted_topics and user_topics: topic muting and following are not kept here yet, so none. */
export const topicsState = (): StateProvider[] => [
  provideState(messaging.mutedTopicsState, async () => ({ muted_topics: [] })),
  provideState(messaging.userTopicsState, async () => ({ user_topics: [] })),
];
