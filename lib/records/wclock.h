/*
 * wclock: wall-clock seconds for time limits and reports.
 *
 * wclock_now() reads the monotonic clock: seconds since some fixed
 * point, good for differences only.  It cannot fail on the systems we
 * build for.
 */
#ifndef WCLOCK_H
#define WCLOCK_H

double	wclock_now(void);

#endif
