/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: netfilter hook probes.
 *
 * netfilter.hook("HOOK").pf("PF").priority("P"): a hook function
 * registered in the initial network namespace. The handler sees the
 * hook's arguments in c->tp_args, as the translator's netfilter.c binds
 * them: [0] hook number, [1] the sk_buff, [2] the input device, [3] the
 * output device, [4] the address of the verdict, NF_ACCEPT unless a
 * guru-mode handler stores another. Only NF_ACCEPT and NF_DROP are
 * returned to netfilter: another value (NF_STOLEN without taking the
 * packet would leak it, NF_REPEAT would loop) is an error of the hit and
 * the packet is accepted.
 */
#ifndef _KTAP_NETFILTER_H
#define _KTAP_NETFILTER_H

#include <linux/netfilter.h>
#include <net/net_namespace.h>

/**
 * struct ktap_nf - the hook of one netfilter probe
 * @ops: what is registered
 */
struct ktap_nf {
	struct nf_hook_ops ops;
};

static unsigned int ktap_nf_hook(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	const struct ktap_probe *probe = priv;
	unsigned int verdict = NF_ACCEPT;
	unsigned long args[5] = {
		state->hook, (unsigned long)skb, (unsigned long)state->in,
		(unsigned long)state->out, (unsigned long)&verdict,
	};
	struct ktap_context *c;

	preempt_disable();
	c = ktap_enter(probe, NULL);
	if (c) {
		c->tp_args = args;
		ktap_run_handler(probe, c);
		if (verdict != NF_ACCEPT && verdict != NF_DROP) {
			if (!c->error)
				ktap_errorf(c, NULL, "netfilter verdict %u is not NF_ACCEPT or "
					    "NF_DROP (%s)", verdict, probe->pp);
			verdict = NF_ACCEPT;
		}
		ktap_leave(c);
	}
	preempt_enable();
	return verdict;
}

/**
 * ktap_nf_start() - register a netfilter probe's hook
 * @nfp: where its hook goes (allocated here)
 * @probe: the probe (KTAP_PROBE_NETFILTER)
 *
 * Return: 0, -ENOMEM, or nf_register_net_hook()'s errno.
 */
static int ktap_nf_start(struct ktap_nf **nfp, const struct ktap_probe *probe)
{
	struct ktap_nf *nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	int ret;

	if (!nf)
		return -ENOMEM;
	nf->ops.hook = ktap_nf_hook;
	nf->ops.pf = probe->nf_pf;
	nf->ops.hooknum = probe->nf_hook;
	nf->ops.priority = probe->nf_priority;
	nf->ops.priv = (void *)probe;
	ret = nf_register_net_hook(&init_net, &nf->ops);
	if (ret) {
		kfree(nf);
		return ret;
	}
	*nfp = nf;
	return 0;
}

/**
 * ktap_nf_stop() - unregister a netfilter probe's hook and free it
 * @nfp: as set by ktap_nf_start(); NULL afterwards
 *
 * nf_unregister_net_hook() waits until no packet is in the hook.
 */
static void ktap_nf_stop(struct ktap_nf **nfp)
{
	if (!*nfp)
		return;
	nf_unregister_net_hook(&init_net, &(*nfp)->ops);
	kfree(*nfp);
	*nfp = NULL;
}

#endif /* _KTAP_NETFILTER_H */
