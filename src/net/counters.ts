/** What crossed the wire, counted instead of logged (the log holds control frames only). */
export interface NetCounters {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Frames not usable: bad checksum, truncated, fragment, unknown ethertype, bad option. */
  malformed: number;
  /** Well-formed frames not addressed to the peer (another MAC, multicast) and dropped. */
  ignored: number;
  tcpSegmentsIn: number;
  tcpSegmentsOut: number;
  tcpRetransmits: number;
  /** Guest segments that carried nothing new (retransmits, duplicates): re-ACKed. */
  tcpDuplicatesIn: number;
  /** Guest segments held in the reordering buffer, and those dropped because it was full. */
  tcpOutOfOrderIn: number;
  tcpOutOfOrderDropped: number;
  /** Bugs caught at the peer's edge (a frame that made the peer itself throw): logged as notes. */
  errors: number;
  connectionsOpened: number;
  connectionsRefused: number;
  dnsQueries: number;
}

export function createCounters(): NetCounters {
  return {
    framesIn: 0,
    framesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    malformed: 0,
    ignored: 0,
    tcpSegmentsIn: 0,
    tcpSegmentsOut: 0,
    tcpRetransmits: 0,
    tcpDuplicatesIn: 0,
    tcpOutOfOrderIn: 0,
    tcpOutOfOrderDropped: 0,
    errors: 0,
    connectionsOpened: 0,
    connectionsRefused: 0,
    dnsQueries: 0,
  };
}
