/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: transport.
 *
 * Output leaves the module through a relay channel: one buffer and one
 * debugfs file per CPU, /sys/kernel/debug/<KTAP_MODULE_NAME>/cpuN. A probe
 * hit writes whole records (struct ktap_rec_hdr, then len bytes of text)
 * into its own CPU's buffer; seq comes from one global counter so that the
 * reader can merge the CPUs back into one ordered stream.
 *
 * relay's own read() copies up to the writer's current offset, which a
 * writer on another CPU advances before it fills the record in. The cpuN
 * files therefore use ktap_relay_fops: read() first takes a snapshot of the
 * writer's position between two of its records (a per-CPU seqcount that
 * is odd while a record is written) and copies whole records up to that
 * snapshot only. relay_flush() would move a writer's
 * position from another CPU and defeat the snapshot, so ktap never calls
 * it: the reader already sees the partly filled sub-buffer. A reader
 * blocked in poll() is woken within KTAP_WAKE_MS of a record's arrival.
 *
 * The control file, ctl, carries commands from ktap-run (start, stop) and
 * one-line messages to it (exit, error, warn, done). Messages are queued in
 * a small ring that probe handlers may fill from any context; a full ring
 * loses the message and counts it, it never blocks.
 */
#ifndef _KTAP_TRANSPORT_H
#define _KTAP_TRANSPORT_H

#include "uapi.h"	/* struct ktap_rec_hdr, the control words */

/**
 * struct ktap_cpu_stats - per-CPU state of the runtime
 * @busy: nonzero while a handler, or a runtime section that probes must
 *	not interrupt, runs on this CPU
 * @skipped: probe hits not run: reentrancy, NMI, lock contention
 * @dropped: records lost to a full relay buffer, or overwritten in it
 *	(flight recorder)
 * @records: records written
 * @bytes: bytes of output in them
 * @sub_records: flight recorder: records in each sub-buffer, counted as
 *	dropped when the sub-buffer is overwritten
 */
struct ktap_cpu_stats {
	int busy;
	unsigned long skipped;
	unsigned long dropped;
	unsigned long records;
	unsigned long bytes;
	unsigned int sub_records[KTAP_NR_SUBBUFS];
};

static unsigned long ktap_bufsize = KTAP_BUFSIZE_DEFAULT;
module_param(ktap_bufsize, ulong, 0444);
MODULE_PARM_DESC(ktap_bufsize, "relay buffer bytes per CPU (8 sub-buffers)");

/* KTAP_PARAM_JSON: records carry their time; values are data records */
static bool ktap_json;
module_param(ktap_json, bool, 0444);
MODULE_PARM_DESC(ktap_json, "the loader prints JSON (records are timed)");
/* KTAP_PARAM_TSC_KHZ: set at load, read by the loader */
static unsigned int ktap_tsc_khz;
module_param(ktap_tsc_khz, uint, 0444);
MODULE_PARM_DESC(ktap_tsc_khz, "the TSC's rate (read-only): records' tsc to time");
static unsigned long long ktap_tsc_ref, ktap_ns_ref;
module_param(ktap_tsc_ref, ullong, 0444);
MODULE_PARM_DESC(ktap_tsc_ref, "a TSC reading at load (read-only)");
module_param(ktap_ns_ref, ullong, 0444);
MODULE_PARM_DESC(ktap_ns_ref, "CLOCK_REALTIME at ktap_tsc_ref (read-only)");

/* the moment both clocks are read together: the TSC's readings before
 * and after the clock's, halved, with interrupts off */
static void ktap_clock_ref(void)
{
	unsigned long flags;
	u64 t0, t1, ns;

	local_irq_save(flags);
	t0 = get_cycles();
	ns = ktime_get_real_ns();
	t1 = get_cycles();
	local_irq_restore(flags);
	ktap_tsc_ref = t0 + (t1 - t0) / 2;
	ktap_ns_ref = ns;
	ktap_tsc_khz = tsc_khz;
}

/*
 * Flight recorder (ktap -F without -o): the relay buffer is a ring whose
 * oldest sub-buffer the writer overwrites when it is full, so that it
 * holds the last records whenever a reader attaches; the records lost
 * are counted as dropped.
 */
static bool ktap_flight;
module_param(ktap_flight, bool, 0444);
MODULE_PARM_DESC(ktap_flight, "overwrite the oldest output when the buffer is full");

static struct ktap_cpu_stats __percpu *ktap_stats;

/*
 * Records read from the sub-buffer a reader is in, per relay buffer
 * (touched by the reader only, under the file's lock), and those of them
 * that the writer counted as dropped when it overwrote that sub-buffer
 * anyway: ktap_sum_dropped() leaves them out.
 */
static DEFINE_PER_CPU(unsigned long, ktap_sub_read);
static atomic_long_t ktap_dropped_read = ATOMIC_LONG_INIT(0);
static atomic64_t ktap_seq = ATOMIC64_INIT(0);
static struct rchan *ktap_chan;
static struct dentry *ktap_dir;

/* runs a command written to ctl: module.h's, given to ktap_transport_init() */
static int (*ktap_ctl_handler)(const char *cmd);
/* called when a ctl that said KTAP_CMD_HOLD is closed (module.h's) */
static void (*ktap_ctl_closed)(void);

/**
 * ktap_busy_claim() - mark this CPU as running a probe handler
 *
 * Context: preemption disabled.
 * Return: true if this CPU was not busy; false (and the hit is counted as
 * skipped) if a handler or a runtime critical section is already running
 * here, i.e. the probe fired inside one.
 */
static inline bool ktap_busy_claim(void)
{
	if (likely(this_cpu_inc_return(ktap_stats->busy) == 1))
		return true;
	this_cpu_dec(ktap_stats->busy);
	this_cpu_inc(ktap_stats->skipped);
	return false;
}

/**
 * ktap_busy_inc() - enter a runtime section that probes must not interrupt
 *
 * Nests. Interrupts or preemption must be disabled. A probe that fires on
 * this CPU before the matching ktap_busy_dec() is skipped, so it cannot
 * deadlock on a lock this section holds.
 */
static inline void ktap_busy_inc(void)
{
	this_cpu_inc(ktap_stats->busy);
}

/**
 * ktap_busy_dec() - leave a section entered with ktap_busy_inc() or
 *	ktap_busy_claim()
 */
static inline void ktap_busy_dec(void)
{
	this_cpu_dec(ktap_stats->busy);
}

/**
 * ktap_count_skipped() - count one probe hit that did not run
 */
static atomic_t ktap_skipped_atomic = ATOMIC_INIT(0);

static inline void ktap_count_skipped(void)
{
	this_cpu_inc(ktap_stats->skipped);
	atomic_inc(&ktap_skipped_atomic);	/* NMI-safe; checked in ktap_leave() */
}

/**
 * ktap_sum_dropped() - records dropped so far, all CPUs
 *
 * Return: the sum of the per-CPU drop counters.
 */
static unsigned long ktap_sum_dropped(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(ktap_stats, cpu)->dropped;
	/* flight recorder: overwritten after the reader had them */
	return sum - atomic_long_read(&ktap_dropped_read);
}

/**
 * ktap_sum_skipped() - probe hits skipped so far, all CPUs
 *
 * Return: the sum of the per-CPU skip counters.
 */
static unsigned long ktap_sum_skipped(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(ktap_stats, cpu)->skipped;
	return sum;
}

/* ---- relay: writing ---- */

/*
 * Odd while this CPU is writing a record (reserve + copy). A reader takes
 * the writer's position only between writes, without interrupting it.
 */
static DEFINE_PER_CPU(seqcount_t, ktap_relay_seq);

/**
 * ktap_transport_write_as() - write one record into this CPU's relay buffer
 * @rec: header followed by @rec->len bytes of output; magic, seq and
 *	tsc are filled in here
 * @magic: KTAP_REC_MAGIC (text) or KTAP_REC_MAGIC_DATA (uapi.h)
 *
 * Called from a probe handler, with preemption disabled and this CPU
 * claimed (ktap_busy_claim()): a probe that fires in an interrupt here is
 * skipped, so no other record is written on this CPU meanwhile and
 * interrupts may stay on (saving and restoring them is dear in a TCG
 * guest, on every record). The record is numbered, reserved and filled
 * inside this CPU's ktap_relay_seq, so the reader's snapshot never sees
 * it half written, and seq grows in buffer order. A full buffer drops the
 * record and counts it. Readers are not woken from here (see
 * ktap_relay_waker()).
 */
static __always_inline void ktap_transport_write_as(struct ktap_rec_hdr *rec, u32 magic)
{
	size_t size = sizeof(*rec) + rec->len;
	void *p;

	/* only JSON shows the time: text output does not pay for the clock */
	rec->tsc = unlikely(ktap_json) ? get_cycles() : 0;
	/* readers on other CPUs retry while this write is in progress */
	raw_write_seqcount_begin(this_cpu_ptr(&ktap_relay_seq));
	rec->magic = magic;
	rec->seq = atomic64_inc_return(&ktap_seq);
	p = relay_reserve(ktap_chan, size);
	if (likely(p)) {
		memcpy(p, rec, size);
		this_cpu_inc(ktap_stats->records);
		this_cpu_add(ktap_stats->bytes, rec->len);
		if (unlikely(ktap_flight)) {
			struct rchan_buf *buf = *this_cpu_ptr(ktap_chan->buf);

			this_cpu_inc(ktap_stats->sub_records[buf->subbufs_produced %
							     KTAP_NR_SUBBUFS]);
		}
	} else {
		this_cpu_inc(ktap_stats->dropped);
	}
	raw_write_seqcount_end(this_cpu_ptr(&ktap_relay_seq));
}

/* ktap_transport_write_as() for output text */
static __always_inline void ktap_transport_write(struct ktap_rec_hdr *rec)
{
	ktap_transport_write_as(rec, KTAP_REC_MAGIC);
}

/**
 * ktap_relay_subbuf_start() - relay callback: may a new sub-buffer start?
 * @buf: the channel buffer
 * @subbuf: the sub-buffer about to be written
 * @prev_subbuf: the one just finished
 * @prev_padding: unused bytes at the end of @prev_subbuf
 *
 * Never overwrite data the reader has not consumed, unless this is a
 * flight recorder: then the oldest sub-buffer goes, and its records are
 * counted as dropped. Otherwise the write that fails counts itself as
 * dropped in ktap_transport_write(). Runs on @buf's CPU (from
 * relay_reserve()), or before any probe (relay_open()).
 *
 * Return: 0 when every sub-buffer holds unread data (and no flight
 * recorder), 1 otherwise.
 */
static int ktap_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
				   void *prev_subbuf, size_t prev_padding)
{
	struct ktap_cpu_stats *st = per_cpu_ptr(ktap_stats, buf->cpu);
	size_t sub = buf->subbufs_produced % KTAP_NR_SUBBUFS;

	if (relay_buf_full(buf)) {
		if (!ktap_flight)
			return 0;
		st->dropped += st->sub_records[sub];
	}
	st->sub_records[sub] = 0;
	return 1;
}

/* ---- relay: reading ---- */

/**
 * struct ktap_relay_pos - a writer's position, taken on the writer's CPU
 * @buf: the buffer
 * @produced: sub-buffers completed
 * @offset: bytes used in the current sub-buffer (> subbuf_size: full)
 * @wsub: index of the current sub-buffer
 */
struct ktap_relay_pos {
	struct rchan_buf *buf;
	size_t produced;
	size_t offset;
	size_t wsub;
};

/**
 * ktap_relay_snap_local() - record the writer's position
 * @info: the struct ktap_relay_pos to fill in
 *
 * Called between the writer's records (see ktap_relay_snapshot()).
 */
static void ktap_relay_snap_local(void *info)
{
	struct ktap_relay_pos *pos = info;
	struct rchan_buf *buf = pos->buf;

	pos->produced = buf->subbufs_produced;
	pos->offset = buf->offset;
	pos->wsub = (buf->data - buf->start) / buf->chan->subbuf_size;
}

/**
 * ktap_relay_snapshot() - take a consistent snapshot of a writer's position
 * @buf: the buffer
 * @pos: filled in
 *
 * Process context. Retries while the writer is in the middle of a record,
 * so every record below the snapshot is completely written. No IPI: the
 * writer is never interrupted to answer.
 */
static void ktap_relay_snapshot(struct rchan_buf *buf,
				struct ktap_relay_pos *pos)
{
	seqcount_t *seq = per_cpu_ptr(&ktap_relay_seq, buf->cpu);
	unsigned int start;

	pos->buf = buf;
	do {
		start = raw_read_seqcount_begin(seq);
		ktap_relay_snap_local(pos);
	} while (read_seqcount_retry(seq, start));
}

/**
 * ktap_relay_records() - how much of a run of records fits in a read
 * @p: the first record
 * @avail: bytes of complete records at @p
 * @room: bytes the reader can still take
 * @nrec: set to the number of those records
 *
 * Return: the size of the whole records at @p that fit in @room (0 if not
 * even the first one fits), or -EIO if @p does not hold well-formed records.
 */
static ssize_t ktap_relay_records(const char *p, size_t avail, size_t room,
				  unsigned long *nrec)
{
	size_t n = 0;

	*nrec = 0;
	while (n < avail) {
		struct ktap_rec_hdr h;
		size_t size;

		if (avail - n < sizeof(h))
			return -EIO;
		memcpy(&h, p + n, sizeof(h));
		size = sizeof(h) + h.len;
		if ((h.magic != KTAP_REC_MAGIC && h.magic != KTAP_REC_MAGIC_DATA) ||
		    size > avail - n)
			return -EIO;
		if (size > room - n)
			break;
		n += size;
		(*nrec)++;
	}
	return n;
}

/**
 * ktap_relay_skip() - a flight recorder's reader moves past what the
 *	writer overwrote, to the oldest sub-buffer left whole
 * @buf: the buffer
 * @pos: the writer's position
 *
 * The writer counted every record of the sub-buffer the reader was in as
 * dropped; those the reader had read already were not lost.
 */
static void ktap_relay_skip(struct rchan_buf *buf, const struct ktap_relay_pos *pos)
{
	unsigned long *read = per_cpu_ptr(&ktap_sub_read, buf->cpu);

	atomic_long_add(*read, &ktap_dropped_read);
	*read = 0;
	buf->subbufs_consumed = pos->produced - buf->chan->n_subbufs + 1;
	buf->bytes_consumed = 0;
}

/**
 * ktap_relay_lapped() - did a flight recorder's writer go round into the
 *	sub-buffer being read?
 * @buf: the buffer
 * @pos: the writer's position; taken anew
 *
 * Without a reader to wait for, the writer of a flight recorder may
 * overwrite the oldest sub-buffer while a read copies it. Called after
 * the copy: if the writer has reached that sub-buffer, the reader moves
 * on to the oldest one left whole and the copy is not counted.
 *
 * Return: true if it did (the read starts over from the new position).
 */
static bool ktap_relay_lapped(struct rchan_buf *buf, struct ktap_relay_pos *pos)
{
	size_t n_subbufs = buf->chan->n_subbufs;

	ktap_relay_snapshot(buf, pos);
	if (pos->produced - buf->subbufs_consumed < n_subbufs)
		return false;
	ktap_relay_skip(buf, pos);
	return true;
}

/**
 * ktap_relay_read() - read() of a cpuN file: whole, complete records
 * @filp: the file; private_data is the relay buffer
 * @ubuf: user buffer
 * @count: its size
 * @ppos: unused (not seekable)
 *
 * Copies whole records, oldest first, up to a snapshot of the writer's
 * position, consuming them. Never blocks: use poll() to wait.
 *
 * Return: bytes read; 0 if no record is ready; -EINVAL if @count cannot
 * hold the next record (KTAP_PRINT_BUFSIZE bytes always can); -EIO if the
 * buffer is corrupt; -EFAULT.
 */
static ssize_t ktap_relay_read(struct file *filp, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct rchan_buf *buf = filp->private_data;
	size_t subbuf_size = buf->chan->subbuf_size;
	size_t n_subbufs = buf->chan->n_subbufs;
	struct ktap_relay_pos pos;
	size_t done = 0;
	ssize_t ret = 0;
	int laps = 0;
	unsigned long nrec;

	inode_lock(file_inode(filp));
	ktap_relay_snapshot(buf, &pos);
	/* a flight recorder's writer went round: the oldest sub-buffer
	 * left whole is the one after the writer's */
	if (ktap_flight && pos.produced - buf->subbufs_consumed >= n_subbufs)
		ktap_relay_skip(buf, &pos);
	for (;;) {
		size_t sub = buf->subbufs_consumed % n_subbufs;
		bool complete = buf->subbufs_consumed != pos.produced;
		size_t from = buf->bytes_consumed;
		char *base = buf->start + sub * subbuf_size;
		size_t end;

		if (complete)
			end = subbuf_size - buf->padding[sub];
		else if (pos.offset <= subbuf_size && pos.wsub == sub)
			end = pos.offset;
		else
			break;		/* buffer full, all of it consumed */
		if (from > end) {
			ret = -EIO;
			break;
		}
		ret = ktap_relay_records(base + from, end - from, count - done, &nrec);
		if (ret < 0)
			break;
		if (ret && copy_to_user(ubuf + done, base + from, ret)) {
			ret = -EFAULT;
			break;
		}
		/* what was copied may be torn: not counted (a few times at
		 * most, so that a writer faster than the copy cannot keep
		 * the reader here) */
		if (ktap_flight && laps < 8 && ktap_relay_lapped(buf, &pos)) {
			laps++;
			continue;
		}
		done += ret;
		*per_cpu_ptr(&ktap_sub_read, buf->cpu) += nrec;
		buf->bytes_consumed = from + ret;
		if (from + ret < end) {
			ret = done ? 0 : -EINVAL;	/* no room for the next */
			break;
		}
		if (!complete)
			break;
		relay_subbufs_consumed(buf->chan, buf->cpu, 1);
		buf->bytes_consumed = 0;
		*per_cpu_ptr(&ktap_sub_read, buf->cpu) = 0;
	}
	inode_unlock(file_inode(filp));
	if (ret == -EIO)
		pr_warn_once("ktap: corrupt record in relay buffer %u\n",
			     buf->cpu);
	return done ? done : min_t(ssize_t, ret, 0);
}

/**
 * ktap_relay_pending() - may a cpuN file have a record to read?
 * @buf: the buffer
 *
 * A racy hint for poll(); ktap_relay_read() decides.
 *
 * Return: true if the writer has written past the reader.
 */
static bool ktap_relay_pending(struct rchan_buf *buf)
{
	size_t offset = READ_ONCE(buf->offset);

	if (READ_ONCE(buf->subbufs_produced) != buf->subbufs_consumed)
		return true;
	return offset <= buf->chan->subbuf_size &&
	       offset > buf->bytes_consumed;
}

/**
 * ktap_relay_poll() - poll() of a cpuN file
 * @filp: the file
 * @wait: poll table
 *
 * Return: EPOLLIN when records may be ready, EPOLLERR once the channel is
 * being closed.
 */
static __poll_t ktap_relay_poll(struct file *filp, poll_table *wait)
{
	struct rchan_buf *buf = filp->private_data;

	if (buf->finalized)
		return EPOLLERR;
	poll_wait(filp, &buf->read_wait, wait);
	if (ktap_relay_pending(buf))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

/**
 * ktap_relay_waker() - timer: wake readers that wait while records are ready
 * @t: ktap_wake_timer
 *
 * relay wakes a reader when a sub-buffer fills up. Waking one per record
 * from the probe would cost a deferred wakeup (and, when the reader shares
 * the CPU, a context switch) for every record, so instead this timer wakes
 * waiting readers every KTAP_WAKE_MS while there is something to read.
 */
static void ktap_relay_waker(struct timer_list *t)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rchan_buf *buf = *per_cpu_ptr(ktap_chan->buf, cpu);

		if (buf && waitqueue_active(&buf->read_wait) &&
		    ktap_relay_pending(buf))
			wake_up_interruptible(&buf->read_wait);
	}
	mod_timer(t, jiffies + msecs_to_jiffies(KTAP_WAKE_MS));
}

static DEFINE_TIMER(ktap_wake_timer, ktap_relay_waker);

/**
 * ktap_relay_open() - open() of a cpuN file: relay's own (takes a
 *	reference on the buffer)
 * @inode: the debugfs inode; i_private is the buffer
 * @filp: the file
 *
 * Return: 0 or a negative errno.
 */
static int ktap_relay_open(struct inode *inode, struct file *filp)
{
	return relay_file_operations.open(inode, filp);
}

/**
 * ktap_relay_release() - release() of a cpuN file: relay's own
 * @inode: the inode
 * @filp: the file
 *
 * Return: 0.
 */
static int ktap_relay_release(struct inode *inode, struct file *filp)
{
	return relay_file_operations.release(inode, filp);
}

static const struct file_operations ktap_relay_fops = {
	.owner = THIS_MODULE,
	.open = ktap_relay_open,
	.read = ktap_relay_read,
	.poll = ktap_relay_poll,
	.release = ktap_relay_release,
	/* no .llseek: since 6.0 a file without one is opened without
	 * FMODE_LSEEK and lseek() fails with ESPIPE, as no_llseek() did
	 * (6.12 removed no_llseek) */
};

/**
 * ktap_relay_create_file() - relay callback: create the cpuN file
 * @filename: "cpuN"
 * @parent: the module's debugfs directory
 * @mode: file mode chosen by relay
 * @buf: the buffer the file reads
 * @is_global: left 0: one buffer per CPU
 *
 * Return: the new dentry, or NULL.
 */
static struct dentry *ktap_relay_create_file(const char *filename,
					     struct dentry *parent,
					     umode_t mode,
					     struct rchan_buf *buf,
					     int *is_global)
{
	struct dentry *d = debugfs_create_file(filename, mode, parent, buf,
					       &ktap_relay_fops);

	return IS_ERR(d) ? NULL : d;
}

/**
 * ktap_relay_remove_file() - relay callback: remove a cpuN file
 * @dentry: the file
 *
 * Return: 0.
 */
static int ktap_relay_remove_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks ktap_relay_cbs = {
	.subbuf_start = ktap_relay_subbuf_start,
	.create_buf_file = ktap_relay_create_file,
	.remove_buf_file = ktap_relay_remove_file,
};

/* ---- control channel ---- */

/*
 * How full the ring may be for a message to be queued: probe messages
 * leave room for "exit", which leaves room for the final messages of stop.
 */
enum ktap_ctl_level {
	KTAP_CTL_PROBE = KTAP_CTL_SLOTS - 4,
	KTAP_CTL_EXIT = KTAP_CTL_SLOTS - 2,
	KTAP_CTL_FINAL = KTAP_CTL_SLOTS,
};

/**
 * struct ktap_ctl - the control channel's message ring
 * @lock: protects @head, @tail, @pos, @lost and the slots being filled
 * @head: next slot to fill
 * @tail: next slot to read
 * @pos: bytes of the tail slot already read
 * @lost: messages lost to a full ring
 * @len: length of each slot's line, newline included
 * @msg: the lines
 * @wait: readers
 * @wake: deferred wakeup of @wait (probe context cannot wake directly)
 * @read_lock: one reader at a time
 */
struct ktap_ctl {
	raw_spinlock_t lock;
	unsigned int head;
	unsigned int tail;
	size_t pos;
	unsigned long lost;
	u16 len[KTAP_CTL_SLOTS];
	char msg[KTAP_CTL_SLOTS][KTAP_CTL_MSGLEN];
	wait_queue_head_t wait;
	struct irq_work wake;
	struct mutex read_lock;
};

static struct ktap_ctl ktap_ctl;

/**
 * ktap_ctl_lock() - take the ring lock from any context
 * @flags: saved interrupt state
 *
 * Marks the CPU busy first, so that a probe firing inside the locked
 * section (say on a function vsnprintf calls) is skipped instead of
 * spinning on the lock this CPU holds.
 */
static inline void ktap_ctl_lock(unsigned long *flags)
{
	local_irq_save(*flags);
	ktap_busy_inc();
	raw_spin_lock(&ktap_ctl.lock);
}

/**
 * ktap_ctl_unlock() - release the ring lock
 * @flags: interrupt state saved by ktap_ctl_lock()
 */
static inline void ktap_ctl_unlock(unsigned long flags)
{
	raw_spin_unlock(&ktap_ctl.lock);
	ktap_busy_dec();
	local_irq_restore(flags);
}

/**
 * ktap_ctl_wakeup() - irq_work: wake the readers of ctl
 * @work: ktap_ctl.wake
 */
static void ktap_ctl_wakeup(struct irq_work *work)
{
	wake_up_interruptible(&ktap_ctl.wait);
}

/**
 * __ktap_ctl_vsend() - queue one line on the control channel
 * @level: how full the ring may be (enum ktap_ctl_level)
 * @fmt: printf format of the line, without the newline
 * @ap: its arguments
 *
 * Any context but NMI. Control characters in the text become spaces, so
 * a message is always exactly one line.
 *
 * Return: true if queued, false if the ring was full (counted as lost).
 */
static __printf(2, 0) bool __ktap_ctl_vsend(unsigned int level,
					    const char *fmt, va_list ap)
{
	unsigned long flags;
	bool queued = false;

	ktap_ctl_lock(&flags);
	if (ktap_ctl.head - ktap_ctl.tail < level) {
		unsigned int slot = ktap_ctl.head % KTAP_CTL_SLOTS;
		char *m = ktap_ctl.msg[slot];
		int i, n;

		n = vscnprintf(m, KTAP_CTL_MSGLEN - 1, fmt, ap);
		for (i = 0; i < n; i++)
			if ((unsigned char)m[i] < ' ' || m[i] == 0x7f)
				m[i] = ' ';
		m[n++] = '\n';
		ktap_ctl.len[slot] = n;
		ktap_ctl.head++;
		queued = true;
	} else {
		ktap_ctl.lost++;
	}
	if (queued)
		irq_work_queue(&ktap_ctl.wake);
	ktap_ctl_unlock(flags);
	return queued;
}

/**
 * __ktap_ctl_send() - queue one line on the control channel
 * @level: how full the ring may be (enum ktap_ctl_level)
 * @fmt: printf format of the line, without the newline
 *
 * Return: true if queued.
 */
static __printf(2, 3) bool __ktap_ctl_send(unsigned int level,
					   const char *fmt, ...)
{
	va_list ap;
	bool queued;

	va_start(ap, fmt);
	queued = __ktap_ctl_vsend(level, fmt, ap);
	va_end(ap);
	return queued;
}

/**
 * ktap_ctl_send() - queue a message for ktap-run ("error ...", "warn ...")
 * @fmt: printf format of the line, without the newline
 *
 * Any context but NMI; never blocks. Leaves room in the ring for "exit"
 * and the final messages of stop.
 *
 * Return: true if queued, false if lost.
 */
static __printf(1, 2) bool ktap_ctl_send(const char *fmt, ...)
{
	va_list ap;
	bool queued;

	va_start(ap, fmt);
	queued = __ktap_ctl_vsend(KTAP_CTL_PROBE, fmt, ap);
	va_end(ap);
	return queued;
}

/**
 * ktap_warn() - report a warning: ktap-run prints "WARNING: @msg"
 * @msg: the text
 */
static inline void ktap_warn(const char *msg)
{
	ktap_ctl_send(KTAP_MSG_WARN " %s", msg);
}

/**
 * ktap_ctl_take_lost() - read and clear the count of lost messages
 *
 * Return: messages lost since the last call.
 */
static unsigned long ktap_ctl_take_lost(void)
{
	unsigned long flags, lost;

	ktap_ctl_lock(&flags);
	lost = ktap_ctl.lost;
	ktap_ctl.lost = 0;
	ktap_ctl_unlock(flags);
	return lost;
}

/**
 * ktap_ctl_empty() - is there nothing to read on ctl?
 *
 * Return: true if the ring is empty.
 */
static inline bool ktap_ctl_empty(void)
{
	return READ_ONCE(ktap_ctl.head) == READ_ONCE(ktap_ctl.tail);
}

/**
 * ktap_ctl_copy_out() - copy queued lines to the reader
 * @ubuf: user buffer
 * @count: its size
 *
 * Called with ktap_ctl.read_lock held. The writer never touches the slots
 * between tail and head, so they are copied without the ring lock.
 *
 * Return: bytes copied, or -EFAULT if none could be.
 */
static ssize_t ktap_ctl_copy_out(char __user *ubuf, size_t count)
{
	unsigned long flags;
	size_t done = 0;

	while (done < count) {
		unsigned int slot;
		size_t pos, n;

		ktap_ctl_lock(&flags);
		if (ktap_ctl.head == ktap_ctl.tail) {
			ktap_ctl_unlock(flags);
			break;
		}
		slot = ktap_ctl.tail % KTAP_CTL_SLOTS;
		pos = ktap_ctl.pos;
		n = min_t(size_t, ktap_ctl.len[slot] - pos, count - done);
		ktap_ctl_unlock(flags);

		if (copy_to_user(ubuf + done, ktap_ctl.msg[slot] + pos, n))
			return done ? done : -EFAULT;
		done += n;

		ktap_ctl_lock(&flags);
		ktap_ctl.pos += n;
		if (ktap_ctl.pos == ktap_ctl.len[slot]) {
			ktap_ctl.pos = 0;
			ktap_ctl.tail++;
		}
		ktap_ctl_unlock(flags);
	}
	return done;
}

/**
 * ktap_ctl_read() - read() of ctl: queued lines, blocking unless O_NONBLOCK
 * @filp: the file
 * @ubuf: user buffer
 * @count: its size
 * @ppos: unused
 *
 * Return: bytes read (a line longer than @count continues on the next
 * read), -EAGAIN, -ERESTARTSYS or -EFAULT.
 */
static ssize_t ktap_ctl_read(struct file *filp, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	ssize_t ret;

	if (!count)
		return 0;
	for (;;) {
		if (mutex_lock_interruptible(&ktap_ctl.read_lock))
			return -ERESTARTSYS;
		if (!ktap_ctl_empty())
			break;
		mutex_unlock(&ktap_ctl.read_lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ktap_ctl.wait, !ktap_ctl_empty()))
			return -ERESTARTSYS;
	}
	ret = ktap_ctl_copy_out(ubuf, count);
	mutex_unlock(&ktap_ctl.read_lock);
	return ret;
}

/**
 * ktap_ctl_write() - write() of ctl: one command, "start" or "stop"
 * @filp: the file
 * @ubuf: the command; surrounding white space is ignored
 * @count: its length
 * @ppos: unused
 *
 * Runs the command in the writer's process context and returns when it
 * is done.
 *
 * Return: @count, or the command's negative errno.
 */
static ssize_t ktap_ctl_write(struct file *filp, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char cmd[16];
	int ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	if (!strcmp(strim(cmd), KTAP_CMD_HOLD)) {
		filp->private_data = filp;
		return count;
	}
	ret = ktap_ctl_handler(strim(cmd));
	return ret ? ret : count;
}

/**
 * ktap_ctl_poll() - poll() of ctl
 * @filp: the file
 * @wait: poll table
 *
 * Return: EPOLLOUT always, EPOLLIN when a line is queued.
 */
static __poll_t ktap_ctl_poll(struct file *filp, poll_table *wait)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(filp, &ktap_ctl.wait, wait);
	if (!ktap_ctl_empty())
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/**
 * ktap_ctl_release() - close of ctl: one that holds the run tells the
 *	module (its loader is gone if it had not stopped the script: see
 *	ktap_ctl_abandoned()); `echo start > ctl` holds nothing
 * @inode: the inode
 * @filp: the file; private_data set by KTAP_CMD_HOLD
 *
 * Return: 0.
 */
static int ktap_ctl_release(struct inode *inode, struct file *filp)
{
	if (filp->private_data)
		ktap_ctl_closed();
	return 0;
}

static const struct file_operations ktap_ctl_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.release = ktap_ctl_release,
	.read = ktap_ctl_read,
	.write = ktap_ctl_write,
	.poll = ktap_ctl_poll,
	/* nonseekable_open(); no .llseek (see ktap_relay_fops) */
};

/* ---- the stats file ---- */

/**
 * ktap_stats_read() - read() of the stats file: the counters, one line
 * @filp: the file
 * @ubuf: user buffer
 * @count: its size
 * @ppos: position
 *
 * KTAP_STATS_FORMAT (uapi.h): records and bytes written, records dropped,
 * probe hits skipped, summed over the CPUs at the time of the read.
 *
 * Return: bytes read, or -EFAULT.
 */
static ssize_t ktap_stats_read(struct file *filp, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	unsigned long records = 0, bytes = 0;
	char line[128];
	int cpu, n;

	for_each_possible_cpu(cpu) {
		records += per_cpu_ptr(ktap_stats, cpu)->records;
		bytes += per_cpu_ptr(ktap_stats, cpu)->bytes;
	}
	n = scnprintf(line, sizeof(line), KTAP_STATS_FORMAT "\n", records, bytes,
		      ktap_sum_dropped(), ktap_sum_skipped());
	return simple_read_from_buffer(ubuf, count, ppos, line, n);
}

static const struct file_operations ktap_stats_fops = {
	.owner = THIS_MODULE,
	.read = ktap_stats_read,
};

/* ---- setup ---- */

/**
 * ktap_relay_subbuf_size() - sub-buffer size for the ktap_bufsize parameter
 *
 * Return: ktap_bufsize (clamped to [KTAP_BUFSIZE_MIN, KTAP_BUFSIZE_MAX])
 * divided into KTAP_NR_SUBBUFS page-aligned sub-buffers, each large enough
 * for the largest record.
 */
static size_t ktap_relay_subbuf_size(void)
{
	unsigned long size = clamp(ktap_bufsize, KTAP_BUFSIZE_MIN,
				   KTAP_BUFSIZE_MAX);

	return PAGE_ALIGN(size / KTAP_NR_SUBBUFS);
}

/**
 * ktap_transport_init() - create the debugfs directory, relay files and ctl
 * @command: runs a command written to ctl ("start", "stop")
 * @closed: called when a ctl that holds the run is closed
 *
 * Return: 0 or a negative errno; on failure nothing is left behind.
 */
static int ktap_transport_init(int (*command)(const char *cmd),
			       void (*closed)(void))
{
	struct dentry *ctl;
	int ret;

	ktap_ctl_handler = command;
	ktap_ctl_closed = closed;
	ktap_clock_ref();
	ktap_stats = alloc_percpu(struct ktap_cpu_stats);
	if (!ktap_stats)
		return -ENOMEM;

	raw_spin_lock_init(&ktap_ctl.lock);
	init_waitqueue_head(&ktap_ctl.wait);
	init_irq_work(&ktap_ctl.wake, ktap_ctl_wakeup);
	mutex_init(&ktap_ctl.read_lock);

	ktap_dir = debugfs_create_dir(KTAP_MODULE_NAME, NULL);
	if (IS_ERR(ktap_dir)) {
		ret = PTR_ERR(ktap_dir);
		goto err_stats;
	}
	ktap_chan = relay_open(KTAP_RELAY_FILE, ktap_dir, ktap_relay_subbuf_size(),
			       KTAP_NR_SUBBUFS, &ktap_relay_cbs, NULL);
	if (!ktap_chan) {
		ret = -ENOMEM;
		goto err_dir;
	}
	ctl = debugfs_create_file(KTAP_CTL_FILE, 0600, ktap_dir, NULL, &ktap_ctl_fops);
	if (IS_ERR(ctl)) {
		ret = PTR_ERR(ctl);
		goto err_relay;
	}
	ctl = debugfs_create_file(KTAP_STATS_FILE, 0444, ktap_dir, NULL, &ktap_stats_fops);
	if (IS_ERR(ctl)) {
		ret = PTR_ERR(ctl);
		goto err_relay;
	}
	mod_timer(&ktap_wake_timer, jiffies + msecs_to_jiffies(KTAP_WAKE_MS));
	return 0;

err_relay:
	relay_close(ktap_chan);
err_dir:
	debugfs_remove_recursive(ktap_dir);
err_stats:
	free_percpu(ktap_stats);
	return ret;
}

/**
 * ktap_transport_exit() - remove the files, close relay, free counters
 *
 * No probe may run any more, and no file is open (an open file holds a
 * reference on the module).
 */
static void ktap_transport_exit(void)
{
	del_timer_sync(&ktap_wake_timer);
	relay_close(ktap_chan);
	debugfs_remove_recursive(ktap_dir);
	irq_work_sync(&ktap_ctl.wake);
	free_percpu(ktap_stats);
}

#endif /* _KTAP_TRANSPORT_H */
