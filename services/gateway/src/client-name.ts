/** Zulip's parse_user_agent: the name before the first "/" or version ("ZulipTerminal/0.7.0 (Linux)" → "ZulipTerminal"). */
const USER_AGENT = /^(?<name>[^/ ]*[^0-9/(]*)(\/(?<version>[^/ ]*))?([ /].*)?$/;
/** Zulip's Client.name column holds 30 characters. */
const MAX_CLIENT_NAME = 30;

/**
 * Zulip's get_client_name for API requests: the `client` request parameter
 * when given, else the User-Agent's name, else "Unspecified". Messages record
 * it (a message's `client`).
 */
export function clientName(clientParam: unknown, userAgent: string | undefined): string {
  const name =
    typeof clientParam === "string"
      ? clientParam
      : userAgent === undefined
        ? "Unspecified"
        : (USER_AGENT.exec(userAgent)?.groups?.name ?? "Unspecified");
  return name.slice(0, MAX_CLIENT_NAME);
}
