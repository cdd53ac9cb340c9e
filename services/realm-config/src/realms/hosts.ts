import { isIP } from "node:net";
import type { Config, RealmRef } from "@teamchat/shared";
import type { RealmDoc } from "./realm.schema";

/**
 * Maps Host headers to subdomains and back. The server's root is EXTERNAL_URL
 * (default http://localhost:PORT); `acme.<root host>` is organization "acme";
 * the root host itself, IPs and any other name mean the default organization.
 */
export class RealmHosts {
  private readonly scheme: string;
  private readonly rootHost: string;
  private readonly rootHostname: string;

  constructor(private readonly config: Pick<Config, "EXTERNAL_URL" | "PORT" | "DEFAULT_REALM_SUBDOMAIN">) {
    const url = new URL(config.EXTERNAL_URL ?? `http://localhost:${config.PORT}`);
    this.scheme = url.protocol;
    this.rootHost = url.host;
    this.rootHostname = url.hostname;
  }

  subdomainOf(host: string): string {
    const hostname = host.toLowerCase().replace(/:\d+$/, "");
    const suffix = `.${this.rootHostname}`;
    if (isIP(hostname) || !hostname.endsWith(suffix)) return this.config.DEFAULT_REALM_SUBDOMAIN;
    return hostname.slice(0, -suffix.length);
  }

  ref(realm: RealmDoc): RealmRef {
    const host = realm.subdomain ? `${realm.subdomain}.${this.rootHost}` : this.rootHost;
    return { id: realm.realmId, host, uri: `${this.scheme}//${host}`, name: realm.name };
  }
}
