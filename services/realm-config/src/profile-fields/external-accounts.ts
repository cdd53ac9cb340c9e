/** Zulip's DEFAULT_EXTERNAL_ACCOUNTS (zerver/lib/external_accounts.py): the ready-made type 7 subtypes. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<
  string,
  { text: string; url_pattern: string; name: string; hint: string }
> = {
  twitter: { text: "Twitter", url_pattern: "https://twitter.com/%(username)s", name: "Twitter username", hint: "" },
  github: { text: "GitHub", url_pattern: "https://github.com/%(username)s", name: "GitHub username", hint: "" },
};
