import { z } from "zod";
import { classifyHost } from "./address";

/**
 * The policy file's schema (it holds the host, endpoint and vault-id allowlists).
 * Host patterns are normalised here, once, so `decide` compares like with like: lowercase,
 * punycode (IDNA), no trailing dot. IP literals are never allowed in a policy.
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const Port = z.number().int().min(1).max(65535);

/** `api.github.com` (exactly that name) or `*.example.com` (subdomains only, never the apex). */
export const HostPattern = z.string().transform((raw, ctx) => {
  const wildcard = raw.startsWith("*.");
  const rest = wildcard ? raw.slice(2) : raw;
  if (rest.includes("*")) {
    ctx.addIssue({ code: "custom", message: `"${raw}": a wildcard is allowed only as the whole first label ("*.example.com")` });
    return z.NEVER;
  }
  const host = classifyHost(rest);
  if (host.kind === "invalid") {
    ctx.addIssue({ code: "custom", message: host.reason });
    return z.NEVER;
  }
  if (host.kind !== "name") {
    ctx.addIssue({ code: "custom", message: `"${raw}" is an IP address; only names can be allowed` });
    return z.NEVER;
  }
  if (wildcard && !host.name.includes(".")) {
    ctx.addIssue({ code: "custom", message: `"${raw}": a wildcard needs at least two labels after it` });
    return z.NEVER;
  }
  return wildcard ? `*.${host.name}` : host.name;
});

export const PathPrefix = z.string().regex(/^\/[\x21-\x7e]*$/, "a path prefix starts with / and is printable ASCII");

export const EndpointRule = z.strictObject({
  /** HTTP methods, uppercase; `*` means any method. */
  methods: z
    .array(z.string().regex(TOKEN, "a method is an HTTP token").or(z.literal("*")))
    .min(1)
    .transform((methods) => methods.map((m) => m.toUpperCase())),
  /** Path prefixes matched against the normalised path (see README "Paths"). */
  paths: z.array(PathPrefix).min(1),
});
export type EndpointRule = z.infer<typeof EndpointRule>;

/**
 * `enforce` refuses what the host and endpoint allowlists do not allow; `report` serves it and
 * marks the decision `wouldRefuse` (smokescreen's report mode). Optional rather than defaulted,
 * so a policy that does not set it keeps its hash; absent means `enforce`.
 */
export const PolicyMode = z.enum(["enforce", "report"]);
export type PolicyMode = z.infer<typeof PolicyMode>;

export const HostRule = z.strictObject({
  host: HostPattern,
  /** This host's mode, over the policy's (its endpoint refusals only: a host rule exists). */
  mode: PolicyMode.optional(),
  /** Ports allowed for this host; when absent, the policy's `ports`. */
  ports: z.array(Port).min(1).optional(),
  /** When absent, any method and any path on this host. */
  endpoints: z.array(EndpointRule).min(1).optional(),
});
export type HostRule = z.infer<typeof HostRule>;

/** What to do with an `http://` target. */
export const HttpHandling = z.enum([
  /** Fetch `https://` instead, and say so in the decision (default). */
  "upgrade",
  /** Refuse with `not-https`. */
  "refuse",
  /**
   * Fetch over plain http. For local test upstreams only (the CLI tests): a browser page
   * served over https cannot fetch http anyway (mixed content).
   */
  "allow",
]);
export type HttpHandling = z.infer<typeof HttpHandling>;

export const Policy = z.strictObject({
  version: z.literal(1),
  hosts: z.array(HostRule),
  /** Ports allowed by default; 443 only unless listed. */
  ports: z.array(Port).min(1).default([443]),
  http: HttpHandling.default("upgrade"),
  /** Vault ids a `/v0/vault/*` request may name (the vault-id allowlist). */
  vaults: z.array(z.string().min(1)).default([]),
  /** The mode for hosts without their own; absent means `enforce`. */
  mode: PolicyMode.optional(),
});
export type Policy = z.infer<typeof Policy>;
/** A policy as written in a file, before defaults and normalisation. */
export type PolicyInput = z.input<typeof Policy>;
