// The emulated machine the guest runs on, shared by the hosts that run v86: the page's worker,
// the Node host (npx tab lesson test) and the build (scripts/make-guest-state.ts).
export * from "./machine";
