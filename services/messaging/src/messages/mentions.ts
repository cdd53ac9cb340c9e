import type { UserSummary } from "../users/user-directory";

const WILDCARDS = new Set(["all", "everyone", "channel", "stream", "topic"]);

/**
 * Zulip's mention syntax: @**Full Name** or @**Full Name|id** mentions a user; silent
 * mentions (@_**...**) do not notify. Returns the flags each recipient gets.
 */
export function mentionFlags(content: string, recipients: UserSummary[]): Map<number, string[]> {
  const flags = new Map<number, string[]>();
  const add = (userId: number, flag: string) => {
    const list = flags.get(userId) ?? [];
    if (!list.includes(flag)) flags.set(userId, [...list, flag]);
  };
  for (const [, silent, name, id] of content.matchAll(/@(_?)\*\*([^*|]+)(?:\|(\d+))?\*\*/g)) {
    if (silent) continue;
    if (WILDCARDS.has(name!.toLowerCase())) {
      for (const u of recipients) add(u.user_id, "wildcard_mentioned");
      continue;
    }
    for (const u of recipients) {
      if (id ? u.user_id === Number(id) : u.full_name.toLowerCase() === name!.toLowerCase()) {
        add(u.user_id, "mentioned");
      }
    }
  }
  return flags;
}
