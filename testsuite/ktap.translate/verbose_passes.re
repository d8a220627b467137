ktap_probes\[\] = \{
KTAP_PROBE_BEGIN
