/* netfilter.c - netfilter.hook("HOOK").pf("PF")[.priority("PRI")] (also
 * pf first): a netfilter hook function in the initial network namespace
 * (nf_register_net_hook), run for every packet at that point of that
 * protocol family, in priority order with the other hooks there.
 *
 * Names are linux/netfilter*.h's: NFPROTO_IPV4/IPV6/ARP/BRIDGE; the
 * NF_INET_* hooks (also spelled NF_IP_* and NF_IP6_*), NF_ARP_*, NF_BR_*;
 * priorities as numbers or NF_IP_PRI_* / NF_IP6_PRI_*. The variables:
 * $hooknum, $skb, $in, $out (the devices, 0 when unknown) and $verdict
 * (NF_ACCEPT, 1, unless a guru-mode script sets it to NF_DROP, 0).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"
#include "../target.h"

struct nf_name {
	const char *name;
	int64_t value;
};

static const struct nf_name families[] = {
	{ "NFPROTO_IPV4", 2 }, { "NFPROTO_ARP", 3 }, { "NFPROTO_BRIDGE", 7 },
	{ "NFPROTO_IPV6", 10 },
};

static const struct nf_name hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 }, { "NF_INET_FORWARD", 2 },
	{ "NF_INET_LOCAL_OUT", 3 }, { "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 }, { "NF_IP_FORWARD", 2 },
	{ "NF_IP_LOCAL_OUT", 3 }, { "NF_IP_POST_ROUTING", 4 },
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 }, { "NF_IP6_FORWARD", 2 },
	{ "NF_IP6_LOCAL_OUT", 3 }, { "NF_IP6_POST_ROUTING", 4 },
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 },
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 }, { "NF_BR_FORWARD", 2 },
	{ "NF_BR_LOCAL_OUT", 3 }, { "NF_BR_POST_ROUTING", 4 }, { "NF_BR_BROUTING", 5 },
};

/* enum nf_ip_hook_priorities and nf_ip6_hook_priorities (the same values) */
static const struct nf_name priorities[] = {
	{ "FIRST", INT_MIN }, { "RAW_BEFORE_DEFRAG", -450 }, { "CONNTRACK_DEFRAG", -400 },
	{ "RAW", -300 }, { "SELINUX_FIRST", -225 }, { "CONNTRACK", -200 },
	{ "MANGLE", -150 }, { "NAT_DST", -100 }, { "FILTER", 0 }, { "SECURITY", 50 },
	{ "NAT_SRC", 100 }, { "SELINUX_LAST", 225 }, { "CONNTRACK_HELPER", 300 },
	{ "CONNTRACK_CONFIRM", INT_MAX }, { "LAST", INT_MAX },
};

static bool lookup(const struct nf_name *t, size_t n, const char *name, int64_t *v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			*v = t[i].value;
			return true;
		}
	return false;
}

#define LOOKUP(t, name, v) lookup(t, sizeof(t) / sizeof(t[0]), name, v)

/* "255", "-5", "NF_IP_PRI_FILTER", "NF_IP6_PRI_LAST" */
static bool priority_value(const char *s, int64_t *v)
{
	char *end;
	long long n = strtoll(s, &end, 0);

	if (*s && !*end && n >= INT_MIN && n <= INT_MAX) {
		*v = n;
		return true;
	}
	if (strncmp(s, "NF_IP_PRI_", 10) == 0)
		return LOOKUP(priorities, s + 10, v);
	if (strncmp(s, "NF_IP6_PRI_", 11) == 0)
		return LOOKUP(priorities, s + 11, v);
	return false;
}

static bool string_arg(const struct pp_component *c)
{
	if (c->has_arg && c->arg_is_string)
		return true;
	diag_error(&c->loc, "netfilter .%s wants a name in quotes, e.g. %s", c->name,
		   strcmp(c->name, "pf") == 0 ? "pf(\"NFPROTO_IPV4\")" :
		   strcmp(c->name, "hook") == 0 ? "hook(\"NF_INET_LOCAL_IN\")" :
		   "priority(\"NF_IP_PRI_FILTER\")");
	return false;
}

/* one component: hook, pf or priority, each once; 0: not ours */
static int component(const struct pp_component *c, int64_t v[3], bool seen[3])
{
	static const char *const names[] = { "hook", "pf", "priority" };
	const char *why = NULL;
	int i;

	for (i = 0; i < 3 && strcmp(c->name, names[i]); i++)
		;
	if (i == 3 || seen[i])
		return 0;
	seen[i] = true;
	if (!string_arg(c))
		return -1;
	if (i == 0 && !LOOKUP(hooks, c->str_arg, &v[0]))
		why = "not a netfilter hook (NF_INET_PRE_ROUTING, NF_INET_LOCAL_IN, "
		      "NF_INET_FORWARD, NF_INET_LOCAL_OUT, NF_INET_POST_ROUTING, NF_ARP_*, NF_BR_*)";
	else if (i == 1 && !LOOKUP(families, c->str_arg, &v[1]))
		why = "not a protocol family (NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP, "
		      "NFPROTO_BRIDGE)";
	else if (i == 2 && !priority_value(c->str_arg, &v[2]))
		why = "not a priority (a number, or NF_IP_PRI_* / NF_IP6_PRI_*)";
	if (!why)
		return 1;
	diag_error(&c->loc, "'%s': %s", c->str_arg, why);
	return -1;
}

static struct ctype *plain_type(const char *name, uint64_t size, bool is_signed)
{
	struct ctype *t = xalloc(sizeof(*t));

	t->kind = CT_INT;
	t->name = name;
	t->size = size;
	t->is_signed = is_signed;
	return t;
}

/* a pointer to "struct NAME" from the kernel's BTF or DWARF, else a long */
static struct ctype *struct_pointer(const char *name)
{
	struct target *k = target_kernel();
	struct btf_kernel *btf = target_btf(k, NULL);
	struct ctype *s = btf ? btfk_type_named(btf, name) : NULL, *p;
	struct dw *dw;

	if (!s && (dw = target_dwarf(k, NULL)))
		s = dw_type_named(dw, name);
	if (!s)
		return plain_type("long", 8, true);
	p = xalloc(sizeof(*p));
	p->kind = CT_POINTER;
	p->name = xasprintf("%s*", name);
	p->size = 8;
	p->target = s;
	return p;
}

/* the hook's arguments, as runtime/netfilter.h passes them in c->tp_args */
static void load_vars(struct tvar_scope *sc)
{
	struct cvar *v = xalloc(5 * sizeof(*v));
	static const char *const names[] = { "hooknum", "skb", "in", "out", "verdict" };
	int i;

	for (i = 0; i < 5; i++) {
		v[i].name = names[i];
		v[i].is_param = true;
		v[i].value_c = xasprintf("c->tp_args[%d]", i);
	}
	v[0].type = plain_type("unsigned int", 4, false);
	v[1].type = struct_pointer("struct sk_buff");
	v[2].type = struct_pointer("struct net_device");
	v[3].type = v[2].type;
	/* the hook's return value, in memory that a guru store may write */
	v[4].type = plain_type("unsigned int", 4, false);
	v[4].value_c = NULL;
	v[4].addr_c = "c->tp_args[4]";
	sc->vars = v;
	sc->nvars = 5;
}

int probe_netfilter(const struct probe_point *pp, struct concrete_point *out)
{
	int64_t v[3] = { 0, 0, 0 };
	bool seen[3] = { false, false, false };
	struct tvar_scope *sc;
	int i, rc;

	if (!pp_is(pp, 0, "netfilter") || pp->ncomps < 3 || pp->comps[0].has_arg)
		return 0;
	for (i = 1; i < pp->ncomps; i++) {
		rc = component(&pp->comps[i], v, seen);
		if (rc <= 0)
			return rc;
	}
	if (!seen[0] || !seen[1])
		return 0;
	out->kind = PK_NETFILTER;
	out->nf_hook = (int)v[0];
	out->nf_pf = (int)v[1];
	out->nf_priority = (int)v[2];
	out->pp = probe_point_text(pp);
	sc = xalloc(sizeof(*sc));
	sc->where = out->pp;
	sc->load = load_vars;
	sc->no_regs = true;
	out->scope = sc;
	return 1;
}
