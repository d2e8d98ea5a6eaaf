// The guest's network as every host assembles it: the peer on the NIC, the proxy, the TLS
// terminator, over the host's own upstream fetch (src/page/emulator/network.ts, src/cli/guest).
export { connectGuestNetwork, GUEST_PATIENCE_MS, type GuestNetwork, type GuestNetworkOptions, PROXY_PORT } from "./network";
