import type { Decider, VerdictCode } from "../../log";

/**
 * The verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md), one row a scenario: the
 * commands a user would type, what should happen, and who decides. The scenario bar types
 * the commands into the guest so the user sees exactly what ran.
 */
export interface Scenario {
  id: string;
  /** Row of the verdict table. */
  row: number;
  title: string;
  commands: string[];
  expect: { code: VerdictCode | "dns-visible"; by: Decider; panel: "wire" | "proxy" | "kernel" };
  explanation: string;
  /** Sets up what the row needs before its commands are typed (row 8: the demo vault). */
  prepare?: () => Promise<void>;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: "served",
    row: 1,
    title: "Allowed GET",
    commands: ["curl -sS https://api.github.com/zen; echo"],
    expect: { code: "served", by: "proxy", panel: "proxy" },
    explanation:
      "api.github.com is on the allowlist: the proxy opens the tunnel, terminates the guest's TLS with the session CA, checks SNI and Host, and fetches the request itself with fetch(). Verdict table, row 1: served; logged.",
  },
  {
    id: "host-not-allowed",
    row: 2,
    title: "Host not on the allowlist",
    commands: ["curl -sS https://pastebin.com/raw/abc123; echo"],
    expect: { code: "host-not-allowed", by: "proxy", panel: "proxy" },
    explanation: "pastebin.com is not on the allowlist: the CONNECT is answered 403 before any byte leaves the page. Verdict table, row 2.",
  },
  {
    id: "redirect-other-host",
    row: 3,
    title: "Redirect to another host",
    commands: ["curl -sS -o /dev/null -w '%{http_code}\\n' https://api.github.com/repos/octocat/Hello-World/tarball"],
    expect: { code: "redirect-other-host", by: "proxy", panel: "proxy" },
    explanation:
      "api.github.com answers 302 to another host (codeload.github.com). The redirect is not followed: in the browser its target is hidden (an opaque redirect), so any redirect is refused. Verdict table, row 3.",
  },
  {
    id: "ip-literal",
    row: 4,
    title: "IP literal",
    commands: ["curl -sS https://93.184.216.34/; echo"],
    expect: { code: "ip-literal", by: "proxy", panel: "proxy" },
    explanation: "93.184.216.34 is an address, not a name: only names can be allowed, in any spelling of an address. Verdict table, row 4.",
  },
  {
    id: "sni-mismatch",
    row: 5,
    title: "SNI other than the CONNECT host",
    commands: ["curl -sS --connect-to evil.example:443:api.github.com:443 https://evil.example/zen; echo"],
    expect: { code: "sni-mismatch", by: "design", panel: "proxy" },
    explanation:
      "The tunnel is opened to api.github.com, but the ClientHello names evil.example. The page terminates TLS itself and is the only TLS client upstream, so it sees the mismatch and refuses (alert unrecognized_name). Verdict table, row 5: impossible by design.",
  },
  {
    id: "landlock-denied",
    row: 6,
    title: "Bypass the proxy with connect()",
    commands: ["llrun --ro / --rw /tmp --connect 3128 -- tcpconnect 93.184.216.34 443"],
    expect: { code: "landlock-denied", by: "kernel", panel: "kernel" },
    explanation:
      "Under the agent's Landlock policy TCP may only connect to the proxy's port. The kernel refuses the connect() with EACCES before any packet leaves and logs its decision (a Landlock audit record naming net.connect_tcp and port 443): the Kernel panel shows it, the Wire panel shows no frame for it. Verdict table, row 6.",
  },
  {
    id: "dns",
    row: 7,
    title: "DNS lookup",
    commands: ["llrun --ro / --rw /tmp --connect 3128 -- nslookup example.com 10.0.2.2", "unshare -n nslookup example.com 10.0.2.2"],
    expect: { code: "dns-visible", by: "kernel", panel: "wire" },
    explanation:
      "The agent's Landlock policy rules TCP ports only (UDP rules came with Landlock ABI 10 and the policy does not use them), so the DNS query still leaves and is visible on the Wire panel (answered REFUSED). In an empty network namespace (unshare -n) there is nothing to look up with. Verdict table, row 7.",
  },
];
