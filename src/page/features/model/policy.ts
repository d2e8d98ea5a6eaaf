import type { Verdict } from "../../../log";
import { evaluate, Policy, type Policy as PolicyType } from "../../../policy";

/**
 * Whether the current policy lets the page call a model URL (POST), and the smallest policy
 * change that would: one endpoint rule, `POST <path>` on the model's host. The model host is
 * not on the default policy: the operator puts it there, knowingly, when they supply a key.
 */

export function modelCallVerdict(policy: PolicyType, url: string): Verdict {
  return evaluate(policy, { method: "POST", url }).verdict;
}

export function policyAllowingModel(policy: PolicyType, url: string): PolicyType {
  const { hostname, pathname } = new URL(url);
  const rule = { methods: ["POST"], paths: [pathname] };
  const known = policy.hosts.some((h) => h.host === hostname);
  const hosts = known
    ? policy.hosts.map((h) => (h.host === hostname && h.endpoints ? { ...h, endpoints: [...h.endpoints, rule] } : h))
    : [...policy.hosts, { host: hostname, endpoints: [rule] }];
  return Policy.parse({ ...policy, hosts });
}
