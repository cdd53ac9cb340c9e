import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Addresses and CIDR ranges an operator lists in a setting, comma-separated. */
export class AddressList {
  private readonly ranges: Range[];

  /** An entry that is neither an IP address nor a CIDR range throws, naming `setting`. */
  constructor(setting: string, list: string) {
    this.ranges = list
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry): Range => {
        if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
        if (ipaddr.isValid(entry)) {
          const address = ipaddr.process(entry);
          return [address, address.kind() === "ipv4" ? 32 : 128];
        }
        throw new Error(`${setting}: "${entry}" is neither an IP address nor a CIDR range`);
      });
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  /** Whether the address is in a listed range; an IPv4-mapped IPv6 address (::ffff:10.0.0.1) is its IPv4 address. */
  includes(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  }
}

/**
 * Which addresses the server's outgoing fetches (the image proxy, link
 * previews) may connect to: public unicast ones, as go-camo's isRejectedIP
 * allows, plus the ranges an operator lists in CAMO_ALLOWED_PRIVATE_ADDRESSES. Everything ipaddr.js names a special range
 * is refused: loopback, private, link-local, carrier-grade NAT, multicast,
 * unspecified, broadcast, reserved, unique-local, and the IPv6 forms that embed
 * an IPv4 address (NAT64, 6to4, Teredo), which could lead to a private one.
 */
export class ReachableAddresses {
  private readonly allowed: AddressList;

  /** `allowedPrivate`: addresses or CIDR ranges, comma-separated; an entry that is neither throws. */
  constructor(allowedPrivate: string) {
    this.allowed = new AddressList("CAMO_ALLOWED_PRIVATE_ADDRESSES", allowedPrivate);
  }

  /** Whether a fetch may connect to this address (as DNS or a URL gives it). */
  reachable(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    // an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it reaches
    return ipaddr.process(address).range() === "unicast" || this.allowed.includes(address);
  }
}
