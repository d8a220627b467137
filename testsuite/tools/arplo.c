/* arplo - one ARP request on the guest's loopback device, answered by
 * the kernel, for the netfilter.arp.* tests (testsuite/ktap.aliases/arp).
 *
 * Loopback takes no ARP (IFF_NOARP), and ARP for 127/8 is dropped unless
 * route_localnet is set: both are changed for the run and put back. The
 * request is an Ethernet broadcast sent through a packet socket on lo;
 * lo hands it back to the receive path (arp_rcv, NF_ARP_IN), and the
 * kernel's reply goes out through arp_xmit (NF_ARP_OUT). The hardware
 * type is lo's own, ARPHRD_LOOPBACK: arp_process() answers no other. It prints what
 * it sent, "guest KEY VALUE", for the script's "ktap KEY VALUE" lines. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOCALNET "/proc/sys/net/ipv4/conf/lo/route_localnet"

struct arp_frame {
	struct ether_header eth;
	struct arphdr h;
	unsigned char sha[6], sip[4], tha[6], tip[4];
} __attribute__((packed));

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* the old contents of a one-line proc file, and the new written */
static char swap_file(const char *path, char value)
{
	char old = '0';
	FILE *f = fopen(path, "r+");

	if (!f)
		die(path);
	if (fscanf(f, " %c", &old) != 1)
		die(path);
	rewind(f);
	fprintf(f, "%c\n", value);
	fclose(f);
	return old;
}

static short lo_flags(int s, short set, short clear)
{
	struct ifreq ifr = { 0 };
	short old;

	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("SIOCGIFFLAGS");
	old = ifr.ifr_flags;
	ifr.ifr_flags = (old | set) & ~clear;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("SIOCSIFFLAGS");
	return old;
}

int main(void)
{
	static const unsigned char mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct arp_frame f = { 0 };
	struct sockaddr_ll to = { 0 };
	int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ARP));
	short flags;
	char localnet;

	if (s < 0)
		die("socket");
	flags = lo_flags(s, 0, IFF_NOARP);
	localnet = swap_file(LOCALNET, '1');

	memset(f.eth.ether_dhost, 0xff, 6);
	memcpy(f.eth.ether_shost, mac, 6);
	f.eth.ether_type = htons(ETHERTYPE_ARP);
	f.h.ar_hrd = htons(ARPHRD_LOOPBACK);
	f.h.ar_pro = htons(ETHERTYPE_IP);
	f.h.ar_hln = 6;
	f.h.ar_pln = 4;
	f.h.ar_op = htons(ARPOP_REQUEST);
	memcpy(f.sha, mac, 6);
	inet_pton(AF_INET, "127.0.0.2", f.sip);
	inet_pton(AF_INET, "127.0.0.1", f.tip);
	to.sll_family = AF_PACKET;
	to.sll_ifindex = if_nametoindex("lo");
	to.sll_halen = 6;
	memset(to.sll_addr, 0xff, 6);
	if (sendto(s, &f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)) != sizeof(f))
		die("sendto");
	usleep(300000);

	swap_file(LOCALNET, localnet);
	lo_flags(s, flags & IFF_NOARP, 0);
	close(s);
	printf("guest in.ar_op %d\nguest in.ar_hrd %d\nguest in.ar_pro %#x\nguest in.ar_hln 6\n"
	       "guest in.ar_pln 4\nguest in.ar_sha 02:00:00:00:00:01\nguest in.ar_sip 127.0.0.2\n"
	       "guest in.ar_tha 00:00:00:00:00:00\nguest in.ar_tip 127.0.0.1\nguest in.length %zu\n"
	       "guest in.indev_name lo\n", ARPOP_REQUEST, ARPHRD_LOOPBACK, ETHERTYPE_IP,
	       sizeof(f) - sizeof(f.eth));
	/* the kernel's answer: lo's MAC is all zeros */
	printf("guest out.ar_op %d\nguest out.ar_hrd %d\nguest out.ar_sha 00:00:00:00:00:00\nguest out.ar_sip 127.0.0.1\n"
	       "guest out.ar_tha 02:00:00:00:00:01\nguest out.ar_tip 127.0.0.2\nguest out.outdev_name lo\n",
	       ARPOP_REPLY, ARPHRD_LOOPBACK);
	return 0;
}
