/* progress.h - ktap-run's progress line for a slow step (loader/progress.c)
 *
 * progress_after(2, "arming the probes") prints "ktap: arming the
 * probes..." on stderr if the step is still going on two seconds later;
 * progress_done() ends the wait. One step at a time.
 */
#ifndef KTAP_LOADER_PROGRESS_H
#define KTAP_LOADER_PROGRESS_H

void progress_after(double seconds, const char *what);
void progress_done(void);

#endif
