/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap_run_handler() for the hand-written test modules. Generated code
 * switches over its probe table; a test module lists its handlers in
 * ktap_handlers[], in the table's order, and includes this after it.
 */
#ifndef _KTAP_TEST_RUN_HANDLER_H
#define _KTAP_TEST_RUN_HANDLER_H

static void ktap_run_handler(const struct ktap_probe *probe,
			     struct ktap_context *c)
{
	ktap_handlers[probe - ktap_probes](c);
}

#endif /* _KTAP_TEST_RUN_HANDLER_H */
