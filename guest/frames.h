/* frames.h - the host <-> guest agent protocol (doc/internals.md,
 * section 4), in the one header both ends include: translator/vm.c on
 * the host and guest/agent.c (a static program) in the guest.
 *
 * One virtio-serial port, KTAP_AGENT_PORT, which qemu connects to a unix
 * socket on the host. Frames both ways: 1 byte type, 4 bytes length
 * (little endian), payload. The agent prints KTAP_AGENT_READY on the
 * guest's console once it serves the port, and runs commands in
 * KTAP_AGENT_SHARE, where the host's share directory is mounted (9p).
 */
#ifndef KTAP_GUEST_FRAMES_H
#define KTAP_GUEST_FRAMES_H

#include <stdint.h>
#include <stdio.h>

/*
 * KTAP_AGENT_PORTS ports, KTAP_AGENT_PORT followed by the slot number
 * (ktap.ctl0 ... ktap.ctl7), each connected to a unix socket of its own on
 * the host and served as a session of its own by the agent: as many ktap
 * commands as ports use one guest at once. A host ktap takes a free slot
 * (a flock per slot, translator/vm.c).
 */
#define KTAP_AGENT_PORT		"ktap.ctl"
#define KTAP_AGENT_PORTS	8
#define KTAP_AGENT_SHARE	"/mnt/host"
#define KTAP_AGENT_READY	"KTAP-AGENT-READY"

/*
 * The host's own root directory, shared read-only (9p, mount tag
 * KTAP_HOSTROOT_TAG) and mounted in the guest at KTAP_HOSTROOT, with the
 * guest's /proc, /sys and /dev over the host's: with --vm, a `-c CMD` that
 * starts with a host program's path runs chrooted into it, and
 * process("PATH") names the host's file at KTAP_HOSTROOT PATH, so the
 * guest runs and probes the host's programs at their own paths while
 * busybox stays the guest's shell.
 */
#define KTAP_HOSTROOT_TAG	"hostroot"
#define KTAP_HOSTROOT		"/host"

/*
 * A command's file descriptor 3, besides its stdout and stderr: a pipe
 * whose bytes come to the host as KTAP_FRAME_RECORDS, apart from the
 * command's output. ktap --vm --json runs ktap-run -J -O 3 there, so
 * its records (loader/stream.h) do not mix with what a -c command or
 * system() prints, and the host makes the JSON lines.
 */
#define KTAP_AGENT_RECORDS_FD	3

/* how long the agent watches the CPUs' times to answer an A */
#define KTAP_ALIVE_SAMPLE_MS 300

enum ktap_frame_type {
	/* host to guest */
	KTAP_FRAME_PING = 'P',		/* a nonce; answered by a P with it */
	KTAP_FRAME_RUN = 'R',		/* a command line for /bin/sh -c */
	KTAP_FRAME_SIGNAL = 'S',	/* a signal number in ASCII, for the
					 * running command's process group */
	KTAP_FRAME_ALIVE = 'A',		/* answered by an A holding, in ASCII,
					 * the first CPU whose time stood still
					 * for KTAP_ALIVE_SAMPLE_MS (it spins
					 * with interrupts off: the guest
					 * hangs), or -1; the running command
					 * is left alone (a P would orphan it) */
	/* guest to host (and P, the pong) */
	KTAP_FRAME_STDOUT = 'O',
	KTAP_FRAME_STDERR = 'E',
	KTAP_FRAME_RECORDS = 'D',	/* what the command wrote to its
					 * KTAP_AGENT_RECORDS_FD */
	KTAP_FRAME_EXIT = 'X',		/* exit status in ASCII; 128+N when
					 * killed by signal N */
};

#define KTAP_FRAME_HDR_LEN 5

/* the virtio port name of slot k */
static inline void ktap_agent_port_name(char *buf, size_t size, int k)
{
	snprintf(buf, size, KTAP_AGENT_PORT "%d", k);
}

/* the header of a frame of type with len bytes of payload */
static inline void ktap_frame_header(unsigned char h[KTAP_FRAME_HDR_LEN],
				     char type, uint32_t len)
{
	h[0] = (unsigned char)type;
	h[1] = len;
	h[2] = len >> 8;
	h[3] = len >> 16;
	h[4] = len >> 24;
}

/* the payload length a header says */
static inline uint32_t ktap_frame_len(const unsigned char h[KTAP_FRAME_HDR_LEN])
{
	return h[1] | h[2] << 8 | h[3] << 16 | (uint32_t)h[4] << 24;
}

#endif
