// The shipped guest in v86 under Node with the page's network peer, proxy and TLS core:
// what `npx tab lesson test` runs lessons on.
export { type CommandRun, type CommandRunner, createCommandRunner } from "./command-window";
export { GUEST_IMAGE_DIR, GuestImageError, readGuestStart } from "./image";
export { type NodeGuest, type NodeGuestOptions, startNodeGuest } from "./start";
export { createGuestUpstream, type GuestUpstream, type UpstreamChoice } from "./upstreams";
