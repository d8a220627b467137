/* progress.c - say what a slow step does once it has taken a while.
 *
 * A thread, not a timer signal: ktap-run's slow step is the write of
 * "start", which the module aborts (disarming every probe) when a signal
 * is pending, and a thread of ktap-run is in its tgid, which the module
 * does not trace (KTAP_PARAM_LOADER).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static pthread_t waiter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static bool waiting, done;
static struct timespec deadline;
static char line[256];

static void *wait_then_say(void *arg)
{
	int timed_out = 0;

	(void)arg;
	pthread_mutex_lock(&lock);
	while (!done && !timed_out)
		timed_out = pthread_cond_timedwait(&done_cond, &lock, &deadline) != 0;
	/* one write(2), so that the line is not split by others; if it
	 * fails there is nowhere to say so */
	if (!done && write(2, line, strlen(line)) < 0)
		done = true;
	pthread_mutex_unlock(&lock);
	return NULL;
}

void progress_after(double seconds, const char *what)
{
	snprintf(line, sizeof(line), "ktap: %s...\n", what);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)seconds;
	deadline.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	done = false;
	waiting = pthread_create(&waiter, NULL, wait_then_say, NULL) == 0;
}

void progress_done(void)
{
	if (!waiting)
		return;
	pthread_mutex_lock(&lock);
	done = true;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&lock);
	pthread_join(waiter, NULL);
	waiting = false;
}
